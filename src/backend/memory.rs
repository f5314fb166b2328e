//! How much host memory one allocation may take, and the E0403 that refuses a
//! larger one before the allocator is asked. The limit is the tightest of what
//! the system has available (`MemAvailable`), what the process's cgroup (v2 or
//! v1) still allows, and what `RLIMIT_AS` / `RLIMIT_DATA` leave above the
//! current usage: under a container or `ulimit -v` the allocator would
//! otherwise abort the process instead of reporting an error.

use crate::diag::Diagnostic;
use crate::syntax::ast::Span;

/// Allocations below this many bytes are not checked: reading the limits costs
/// a few system calls, and a small allocation that fails is as likely to fail
/// anywhere else in the program.
const CHECK_FROM_BYTES: u128 = 64 << 20;

/// The most bytes one allocation may take now, or `None` when nothing is known
/// (not Linux, or no `/proc`).
pub fn allocation_limit() -> Option<u64> {
    [
        mem_available(),
        cgroup_v2_room(),
        cgroup_v1_room(),
        rlimit_room("Max address space", "VmSize:"),
        rlimit_room("Max data size", "VmData:"),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// E0403 when `bytes` exceed the allocation limit. `what` names the array
/// ("this array", "the file's elements").
pub fn check_bytes(bytes: u128, what: &str, span: Option<&Span>) -> Result<(), Diagnostic> {
    if bytes < CHECK_FROM_BYTES {
        return Ok(());
    }
    let limit = allocation_limit().map_or(u128::MAX, u128::from);
    if bytes <= limit.min(isize::MAX as u128) {
        return Ok(());
    }
    let d = Diagnostic::spanless(
        "E0403",
        format!(
            "out of memory: {what} needs {} and {} are available",
            amount(bytes),
            amount(limit)
        ),
    )
    .with_hint(
        "the limit is the least of the free memory, the cgroup's limit and `ulimit -v`; \
         work on smaller pieces, or use a smaller dtype",
    );
    Err(match span {
        Some(span) => d.or_span(span),
        None => d,
    })
}

/// Bytes in GiB: one decimal from 10 GiB up, else two (1.0 GiB against 1.0
/// GiB available would not say why the need was refused).
fn amount(bytes: u128) -> String {
    let gib = bytes as f64 / (1u64 << 30) as f64;
    let decimals = if gib >= 10.0 { 1 } else { 2 };
    format!("{gib:.decimals$} GiB")
}

/// A vector with room for `len` elements, or E0403 when the allocator refuses
/// (checked against the limit first, then with `try_reserve_exact`, so that a
/// refusal never aborts the process).
pub fn try_vec<T>(len: usize, what: &str, span: Option<&Span>) -> Result<Vec<T>, Diagnostic> {
    let bytes = (len as u128) * (std::mem::size_of::<T>() as u128);
    check_bytes(bytes, what, span)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        let d = Diagnostic::spanless(
            "E0403",
            format!(
                "out of memory: {what} needs {:.1} GiB, which the system refused",
                bytes as f64 / (1u64 << 30) as f64
            ),
        )
        .with_hint("work on smaller pieces, or use a smaller dtype");
        match span {
            Some(span) => d.or_span(span),
            None => d,
        }
    })?;
    Ok(v)
}

/// A `/proc/meminfo`-style line `Key:   123 kB` as bytes.
fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn mem_available() -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemAvailable:")
}

/// A cgroup file holding one number (`max` and unreadable files are `None`).
fn read_number(path: &std::path::Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The cgroup path of this process for `controller` ("" for v2's unified line).
fn cgroup_path(v2: bool) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let wanted = if v2 {
            id == "0" && controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == "memory")
        };
        wanted.then(|| path.to_string())
    })
}

/// The least room (limit minus usage) over `dir` and its ancestors up to `root`:
/// a parent's limit binds its children too.
fn room_up_the_tree(root: &str, path: &str, max_file: &str, used_file: &str) -> Option<u64> {
    let mut dir = std::path::PathBuf::from(root);
    dir.push(path.trim_start_matches('/'));
    let root = std::path::Path::new(root);
    let mut best: Option<u64> = None;
    loop {
        if let Some(limit) = read_number(&dir.join(max_file)) {
            let used = read_number(&dir.join(used_file)).unwrap_or(0);
            let room = limit.saturating_sub(used);
            best = Some(best.map_or(room, |b| b.min(room)));
        }
        if dir == root || !dir.pop() || !dir.starts_with(root) {
            return best;
        }
    }
}

fn cgroup_v2_room() -> Option<u64> {
    let path = cgroup_path(true)?;
    room_up_the_tree("/sys/fs/cgroup", &path, "memory.max", "memory.current")
}

fn cgroup_v1_room() -> Option<u64> {
    let path = cgroup_path(false)?;
    // v1 writes "no limit" as a huge number near i64::MAX; that is simply never the minimum.
    room_up_the_tree(
        "/sys/fs/cgroup/memory",
        &path,
        "memory.limit_in_bytes",
        "memory.usage_in_bytes",
    )
}

/// The soft limit named `limit_name` in `/proc/self/limits` minus the usage
/// `usage_key` of `/proc/self/status`.
fn rlimit_room(limit_name: &str, usage_key: &str) -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with(limit_name))?;
    let soft = line[limit_name.len()..].split_whitespace().next()?;
    let limit: u64 = soft.parse().ok()?; // "unlimited" does not parse: no limit
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, usage_key).unwrap_or(0);
    Some(limit.saturating_sub(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_allocations_are_not_checked() {
        assert!(check_bytes(1 << 20, "x", None).is_ok());
    }

    #[test]
    fn impossible_allocations_are_refused() {
        let err = check_bytes(1 << 62, "this array", Some(&(3..7))).unwrap_err();
        assert_eq!(err.code, "E0403");
        assert!(err.message.contains("this array needs"), "{}", err.message);
        assert!(try_vec::<u64>(1 << 60, "x", None).is_err());
    }

    #[test]
    fn the_limit_is_known_on_linux() {
        if cfg!(target_os = "linux") {
            let limit = allocation_limit().expect("MemAvailable at least");
            assert!(limit > 0);
            assert!(limit <= mem_available().expect("meminfo"));
        }
    }

    #[test]
    fn meminfo_fields_parse() {
        let text = "MemTotal:       16000000 kB\nMemAvailable:    1000 kB\n";
        assert_eq!(kib_field(text, "MemAvailable:"), Some(1024 * 1000));
        assert_eq!(kib_field(text, "Nope:"), None);
    }
}
