//! Which games a process plays: shard i of n takes the game indices k with k % n == i.
//!
//! The shard comes from `--shard i/n`, else from a Slurm job array (`SLURM_ARRAY_TASK_ID`,
//! `SLURM_ARRAY_TASK_COUNT`, and `SLURM_ARRAY_TASK_MIN`/`_STEP` so that `--array=1-16` or
//! `--array=0-30:2` work too), else from a Kubernetes indexed Job (`JOB_COMPLETION_INDEX`, the
//! count from `--shards` or the config's `shards`), else the run is one shard of one.

pub use engine::record::ShardInfo as Shard;

/// Parses `i/n` with 0 <= i < n.
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("shard '{text}' is not of the form i/n (for example 0/8)"))?;
    let index: u32 = i
        .trim()
        .parse()
        .map_err(|_| format!("shard '{text}': '{i}' is not a number"))?;
    let count: u32 = n
        .trim()
        .parse()
        .map_err(|_| format!("shard '{text}': '{n}' is not a number"))?;
    if count == 0 || index >= count {
        return Err(format!(
            "shard '{text}': the index must be below the count (0/{count} to {}/{count})",
            count.saturating_sub(1)
        ));
    }
    Ok(Shard { index, count })
}

/// Where the shard came from, for the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSource {
    Flag,
    Slurm,
    Kubernetes,
    Single,
}

/// Resolves the shard from the flag, then the environment (`env` looks a variable up).
pub fn resolve_shard(
    flag: Option<&str>,
    shard_count: Option<u32>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(Shard, ShardSource), String> {
    if let Some(text) = flag {
        return Ok((parse_shard(text)?, ShardSource::Flag));
    }
    let number = |name: &str| -> Result<Option<u32>, String> {
        env(name)
            .map(|v| {
                v.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("environment variable {name}='{v}' is not a number"))
            })
            .transpose()
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or(
            "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; pass --shard i/n",
        )?;
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
        let index = id.checked_sub(min).map(|d| d / step).ok_or_else(|| {
            format!("SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}")
        })?;
        let shard = parse_shard(&format!("{index}/{count}"))
            .map_err(|e| format!("from the Slurm array variables: {e}"))?;
        return Ok((shard, ShardSource::Slurm));
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let count = shard_count.ok_or(
            "JOB_COMPLETION_INDEX is set (a Kubernetes indexed Job): give the Job's completions \
             as --shards N or `shards = N` in the config",
        )?;
        let shard = parse_shard(&format!("{index}/{count}"))
            .map_err(|e| format!("from JOB_COMPLETION_INDEX: {e}"))?;
        return Ok((shard, ShardSource::Kubernetes));
    }
    Ok((Shard { index: 0, count: 1 }, ShardSource::Single))
}

/// The shard a folder named `shard-IIII-of-NNNN` (as a sharded run names its folder) holds.
pub fn parse_shard_folder(name: &str) -> Option<Shard> {
    let (i, n) = name.strip_prefix("shard-")?.split_once("-of-")?;
    let shard = Shard {
        index: i.parse().ok()?,
        count: n.parse().ok()?,
    };
    (shard.index < shard.count).then_some(shard)
}

/// Refuses to run `shard` into `out` when `out` holds the shard folders of a run split in
/// another count: an unsharded run there (an array of one task, `sbatch --array=1`, sets
/// SLURM_ARRAY_TASK_COUNT=1) would play every game of the run again beside them. The error
/// names the folders found and the ways that rerun one shard.
pub fn check_shard_folders(out: &std::path::Path, shard: Shard) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    let mut found: Vec<(String, Shard)> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_str()?.to_string();
            let s = parse_shard_folder(&name)?;
            e.path().is_dir().then_some((name, s))
        })
        .collect();
    if found.is_empty() || found.iter().any(|(_, s)| s.count == shard.count) {
        return Ok(());
    }
    found.sort_by_key(|(_, s)| (s.count, s.index));
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    let listed = if names.len() > 6 {
        format!(
            "{}, ... {} ({} folders)",
            names[..3].join(", "),
            names[names.len() - 1],
            names.len()
        )
    } else {
        names.join(", ")
    };
    let n = found[found.len() - 1].1.count;
    let this = if shard.count == 1 {
        "this run is unsharded and would play every game of the run again beside them".to_string()
    } else {
        format!(
            "this run is shard {}/{} and would play its games again beside them",
            shard.index, shard.count
        )
    };
    Err(format!(
        "{} holds the shards of a run split in {n}: {listed}; {this}. To rerun one shard, \
         pass --shard i/{n} (i from 0 to {}) with --resume, or requeue the Slurm task \
         (scontrol requeue JOBID_TASKID), which keeps its array's count",
        out.display(),
        n - 1
    ))
}

/// The game indices of `shard` among `games` games, ascending.
pub fn shard_games(shard: Shard, games: u64) -> impl Iterator<Item = u64> {
    (shard.index as u64..games).step_by(shard.count as usize)
}

/// Games in `shard` among `games`.
pub fn shard_len(shard: Shard, games: u64) -> u64 {
    let (i, n) = (shard.index as u64, shard.count as u64);
    if games <= i {
        0
    } else {
        (games - i).div_ceil(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn flag_then_slurm_then_kubernetes() {
        let none = env_of(&[]);
        assert_eq!(
            resolve_shard(Some("3/8"), None, &none).unwrap(),
            (Shard { index: 3, count: 8 }, ShardSource::Flag)
        );
        assert_eq!(
            resolve_shard(None, None, &none).unwrap(),
            (Shard { index: 0, count: 1 }, ShardSource::Single)
        );
        let slurm = env_of(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "16"),
        ]);
        assert_eq!(
            resolve_shard(None, None, &slurm).unwrap(),
            (
                Shard {
                    index: 5,
                    count: 16
                },
                ShardSource::Slurm
            )
        );
        // --array=1-16 and --array=0-30:2
        let from_one = env_of(&[
            ("SLURM_ARRAY_TASK_ID", "16"),
            ("SLURM_ARRAY_TASK_COUNT", "16"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ]);
        assert_eq!(
            resolve_shard(None, None, &from_one).unwrap().0,
            Shard {
                index: 15,
                count: 16
            }
        );
        let stepped = env_of(&[
            ("SLURM_ARRAY_TASK_ID", "30"),
            ("SLURM_ARRAY_TASK_COUNT", "16"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ]);
        assert_eq!(
            resolve_shard(None, None, &stepped).unwrap().0,
            Shard {
                index: 15,
                count: 16
            }
        );
        let k8s = env_of(&[("JOB_COMPLETION_INDEX", "2")]);
        assert!(resolve_shard(None, None, &k8s)
            .unwrap_err()
            .contains("--shards"));
        assert_eq!(
            resolve_shard(None, Some(4), &k8s).unwrap(),
            (Shard { index: 2, count: 4 }, ShardSource::Kubernetes)
        );
        // The flag wins over the environment.
        assert_eq!(
            resolve_shard(Some("0/2"), None, &slurm).unwrap().1,
            ShardSource::Flag
        );
    }

    #[test]
    fn bad_shards_are_explained() {
        for text in ["3", "8/8", "a/2", "1/0", "-1/4"] {
            assert!(parse_shard(text).is_err(), "{text}");
        }
        let bad = env_of(&[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(resolve_shard(None, None, &bad)
            .unwrap_err()
            .contains("SLURM_ARRAY_TASK_ID"));
    }

    #[test]
    fn shard_folders_are_read_back_and_a_run_of_another_count_beside_them_is_refused() {
        assert_eq!(
            parse_shard_folder("shard-0003-of-0016"),
            Some(Shard {
                index: 3,
                count: 16
            })
        );
        for name in ["shard-0016-of-0016", "shard-x-of-2", "merged", "shard-0001"] {
            assert_eq!(parse_shard_folder(name), None, "{name}");
        }
        let out =
            std::env::temp_dir().join(format!("selfplay-shard-folders-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        // No folder, an empty one: any shard goes.
        assert!(check_shard_folders(&out, Shard { index: 0, count: 1 }).is_ok());
        for i in 0..8 {
            std::fs::create_dir_all(out.join(format!("shard-{i:04}-of-0008"))).unwrap();
        }
        assert!(check_shard_folders(&out, Shard { index: 3, count: 8 }).is_ok());
        let err = check_shard_folders(&out, Shard { index: 0, count: 1 }).unwrap_err();
        assert!(
            err.contains("shard-0000-of-0008")
                && err.contains("shard-0007-of-0008")
                && err.contains("8 folders")
                && err.contains("unsharded")
                && err.contains("--shard i/8")
                && err.contains("scontrol requeue"),
            "{err}"
        );
        let err = check_shard_folders(&out, Shard { index: 1, count: 4 }).unwrap_err();
        assert!(
            err.contains("shard 1/4") && err.contains("--shard i/8"),
            "{err}"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn shards_partition_the_games() {
        for games in [0u64, 1, 7, 100] {
            for count in 1..6u32 {
                let mut all: Vec<u64> = (0..count)
                    .flat_map(|index| {
                        let shard = Shard { index, count };
                        let list: Vec<u64> = shard_games(shard, games).collect();
                        assert_eq!(list.len() as u64, shard_len(shard, games));
                        list
                    })
                    .collect();
                all.sort();
                assert_eq!(all, (0..games).collect::<Vec<_>>());
            }
        }
    }
}
