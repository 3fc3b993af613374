//! A program run as a player: started in a process group of its own, written to line by line,
//! its output read by a thread so that a silent program never blocks the caller past a
//! deadline. Dropping it kills the whole group: no process is left behind. The text protocol's
//! `external` player and a game's own program players (a Gomocup brain) both run on it.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::AgentError;
use crate::line_reader::{read_line, read_raw_line, Line};

/// Why no line came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Silence {
    /// Nothing by the deadline.
    TimedOut,
    /// The program closed its output; why, as far as can be told.
    Gone(String),
}

/// The running program: its input, and its output lines arriving through a reader thread.
pub struct ChildProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    reader: Option<JoinHandle<()>>,
}

impl ChildProcess {
    /// Runs `command` (by `sh -c "exec <command>"` on Unix, so quoting and variables work as in
    /// a shell; split at whitespace elsewhere) with piped input and output, its errors dropped;
    /// its lines are read as the text protocol reads them ([`read_line`]).
    pub fn start(command: &str) -> Result<ChildProcess, AgentError> {
        ChildProcess::start_with(command, read_line)
    }

    /// As [`start`](Self::start), its lines kept as written ([`read_raw_line`]).
    pub fn start_raw(command: &str) -> Result<ChildProcess, AgentError> {
        ChildProcess::start_with(command, read_raw_line)
    }

    fn start_with(
        command: &str,
        read: fn(&mut BufReader<std::process::ChildStdout>) -> std::io::Result<Option<Line>>,
    ) -> Result<ChildProcess, AgentError> {
        let mut cmd = shell_command(command)?;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // A group of its own, so that killing it takes any children it started along.
            cmd.process_group(0);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| AgentError::new(format!("cannot start '{command}': {e}")))?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let (send, lines) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut input = BufReader::new(stdout);
            while let Ok(Some(line)) = read(&mut input) {
                let text = match line {
                    Line::Text(t) => t,
                    Line::TooLong(n) => format!("<a line of {n} bytes>"),
                };
                if send.send(text).is_err() {
                    break;
                }
            }
        });
        Ok(ChildProcess {
            child,
            stdin,
            lines,
            reader: Some(reader),
        })
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Writes `line` and a newline, flushed.
    pub fn send(&mut self, line: &str) -> Result<(), AgentError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| {
                let reason = self.exit_reason();
                AgentError::new(format!("cannot send '{line}': {e}; {reason}"))
            })
    }

    /// The next line the program writes, waiting until `deadline` at most.
    pub fn next_line(&mut self, deadline: Instant) -> Result<String, Silence> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(Silence::TimedOut),
            Err(RecvTimeoutError::Disconnected) => Err(Silence::Gone(self.exit_reason())),
        }
    }

    /// Whether the program has exited by now.
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Why the program stopped answering, as far as can be told.
    pub fn exit_reason(&mut self) -> String {
        // The output closes a moment before the exit status is there.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return format!("the engine exited ({status})");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        "the engine closed its output".into()
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            if let Ok(pid) = i32::try_from(self.child.id()) {
                // SAFETY: kill(2) with a negative pid signals the process group we created.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

fn shell_command(command: &str) -> Result<Command, AgentError> {
    if command.trim().is_empty() {
        return Err(AgentError::new("the external engine's command is empty"));
    }
    #[cfg(unix)]
    {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!("exec {command}"));
        Ok(cmd)
    }
    #[cfg(not(unix))]
    {
        let mut words = command.split_whitespace();
        let mut cmd = Command::new(words.next().expect("not empty"));
        cmd.args(words);
        Ok(cmd)
    }
}

/// Runs `work` on the process in `slot` (`missing` is the error when none runs); any error
/// drops the process, so the next game starts it afresh.
pub fn or_drop<P, T>(
    slot: &mut Option<P>,
    missing: &str,
    work: impl FnOnce(&mut P) -> Result<T, AgentError>,
) -> Result<T, AgentError> {
    let result = match slot.as_mut() {
        Some(process) => work(process),
        None => Err(AgentError::new(missing)),
    };
    if result.is_err() {
        *slot = None;
    }
    result
}

/// At most 200 characters of something an engine said, for messages.
pub fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(200).collect();
    if out.len() < text.len() {
        out.push_str("...");
    }
    out
}
