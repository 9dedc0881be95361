//! `copiergen report`: the per-site table of a stats file.
//!
//! libcopier appends one line per CopierGen copy site to its stats file at
//! exit (`COPIER_STATS_FILE=path`, or stderr with `COPIER_STATS=sites`):
//! `copier: site FILE:LINE:COL fn=F runtime_copies=N runtime_bytes=N
//! async=N observed=N unpaid=N window_ns=N wait_ns=N waits=N state=S pid=N`
//! (`runtime/src/sites.rs`; files of earlier versions name the first two
//! `copies=` and `bytes=`, with the same meaning). The report sums them
//! (exactly) over every process by site and prints one row each, largest
//! byte count first, and a legend ([`LEGEND`]: the counts are of the
//! copies that called the runtime), so a user sees which copies ran
//! asynchronously, how long their windows were and how often the program
//! waited for them.

use crate::error::Error;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `copiergen report FILE...`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Stats files (COPIER_STATS_FILE) or saved stderr logs (COPIER_STATS=sites).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// One site's counters, summed over processes. The sums are `u128`: each
/// line's counters are `u64`, so no sum of fewer than 2^64 lines can
/// overflow, and one that would is an error, never a wrong total.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SiteTotals {
    /// Enclosing function.
    pub function: String,
    /// Copies that called the runtime (bytes below): not those the compiled
    /// code copied inline while nothing was pending ([`LEGEND`]).
    pub copies: u128,
    /// Bytes of those copies.
    pub bytes: u128,
    /// Of them, submitted asynchronously.
    pub asynchronous: u128,
    /// Asynchronous copies observed until a wait covered them.
    pub observed: u128,
    /// Observed copies that did not pay (window minus wait below the
    /// runtime's `adapt_gain_ns`).
    pub unpaid: u128,
    /// Sum of the observed windows, ns.
    pub window_ns: u128,
    /// Sum of the time spent waiting for them, ns.
    pub wait_ns: u128,
    /// Observed copies the program had to wait for.
    pub waits: u128,
    /// Processes per final state (`learning`, `async`, `inline`).
    pub states: BTreeMap<String, u64>,
    /// Processes that reported the site.
    pub processes: u64,
}

/// The counters of a site line, in [`SiteTotals`] order.
const COUNTERS: [&str; 8] = ["runtime_copies", "runtime_bytes", "async", "observed", "unpaid", "window_ns", "wait_ns", "waits"];
/// [`COUNTERS`] as site lines named them before `runtime_copies`.
const OLD_COUNTERS: [&str; 8] = ["copies", "bytes", "async", "observed", "unpaid", "window_ns", "wait_ns", "waits"];

/// What the table's counting columns count, printed under it.
pub const LEGEND: &str = "\
runtime copies, runtime bytes: the copies that called libcopier. While nothing is pending, the compiled
  code copies a run-time length below the threshold, and every copy of a site in state inline, itself,
  without calling libcopier: those copies are not counted. async: the share of the runtime copies
  submitted asynchronously.
";

/// Sums the site lines of `text` (the contents of file `name`) into
/// `sites` (keyed by `FILE:LINE:COL` and function). Other lines are
/// ignored; a site line with a missing or malformed field, or a sum that
/// would overflow, is an error naming `name:LINE`.
pub fn add_lines(name: &str, text: &str, sites: &mut BTreeMap<String, SiteTotals>) -> Result<(), String> {
    for (no, line) in text.lines().enumerate() {
        add_line(line, sites).map_err(|e| format!("{name}:{}: {e}", no + 1))?;
    }
    Ok(())
}

/// Adds one line (see [`add_lines`]); the error does not name the line.
fn add_line(line: &str, sites: &mut BTreeMap<String, SiteTotals>) -> Result<(), String> {
    let Some(at) = line.find("copier: site ") else { return Ok(()) };
    let rest = &line[at + "copier: site ".len()..];
    let mut words = rest.split_whitespace();
    let Some(loc) = words.next() else { return Err("site line without a location".to_owned()) };
    let mut fields: BTreeMap<&str, &str> = BTreeMap::new();
    for w in words {
        if let Some((k, v)) = w.split_once('=') {
            fields.insert(k, v);
        }
    }
    let num = |k: &str| -> Result<u64, String> {
        let v = fields.get(k).ok_or_else(|| format!("site {loc}: no {k}= (a truncated or foreign line?)"))?;
        v.parse::<u64>().map_err(|_| {
            let what = if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) { "is too large (over 64 bits)" } else { "is not a number" };
            format!("site {loc}: {k}={v} {what}")
        })
    };
    // (`copies=`, `bytes=`: the names before `runtime_`, same counts)
    let old = !fields.contains_key("runtime_copies") && fields.contains_key("copies");
    let counters = if old { OLD_COUNTERS } else { COUNTERS };
    let mut values = [0u64; COUNTERS.len()];
    for (v, k) in values.iter_mut().zip(counters) {
        *v = num(k)?;
    }
    let function = unescape(fields.get("fn").copied().unwrap_or("?"));
    // One row per location and function: without debug information
    // every location is `?:0:0`.
    let key = format!("{}\u{0}{function}", unescape(loc));
    // (updated in a copy: a rejected line changes nothing)
    let mut t = sites.get(&key).cloned().unwrap_or_default();
    t.function = function;
    let sums = [
        &mut t.copies,
        &mut t.bytes,
        &mut t.asynchronous,
        &mut t.observed,
        &mut t.unpaid,
        &mut t.window_ns,
        &mut t.wait_ns,
        &mut t.waits,
    ];
    for ((sum, v), k) in sums.into_iter().zip(values).zip(counters) {
        *sum = sum.checked_add(u128::from(v)).ok_or_else(|| format!("site {loc}: the sum of {k}= overflows"))?;
    }
    *t.states.entry(fields.get("state").copied().unwrap_or("?").to_owned()).or_default() += 1;
    t.processes += 1;
    sites.insert(key, t);
    Ok(())
}

/// Decodes the runtime's %-escapes (`%20` for a space in a path).
fn unescape(w: &str) -> String {
    let b = w.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && w.is_char_boundary(i + 1) && w.is_char_boundary(i + 3) {
            if let Ok(v) = u8::from_str_radix(&w[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn human_bytes(b: u128) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn mean_us(total_ns: u128, n: u128) -> String {
    if n == 0 {
        "-".to_owned()
    } else {
        format!("{:.1} us", total_ns as f64 / n as f64 / 1000.0)
    }
}

/// The table: one row per site, largest byte count first, then
/// [`LEGEND`].
pub fn render(sites: &BTreeMap<String, SiteTotals>) -> String {
    let mut rows: Vec<(&String, &SiteTotals)> = sites.iter().collect();
    rows.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then(a.0.cmp(b.0)));
    let mut out = format!(
        "{:<40} {:<24} {:>14} {:>13} {:>7} {:>12} {:>7} {:>12} {:>8}  state\n",
        "site", "function", "runtime copies", "runtime bytes", "async", "mean window", "waits", "mean wait", "unpaid"
    );
    for (key, t) in rows {
        let loc = key.split('\u{0}').next().unwrap_or(key);
        let async_pct = if t.copies == 0 { 0.0 } else { 100.0 * t.asynchronous as f64 / t.copies as f64 };
        // (a site line per process, or per copy of a runtime in a process)
        let states: Vec<String> = t.states.iter().map(|(s, n)| if t.processes > 1 { format!("{s} x{n}") } else { s.clone() }).collect();
        out += &format!(
            "{:<40} {:<24} {:>14} {:>13} {:>6.0}% {:>12} {:>7} {:>12} {:>8}  {}\n",
            loc,
            t.function,
            t.copies,
            human_bytes(t.bytes),
            async_pct,
            mean_us(t.window_ns, t.observed),
            t.waits,
            mean_us(t.wait_ns, t.waits),
            t.unpaid,
            states.join(", ")
        );
    }
    out.push('\n');
    out += LEGEND;
    out
}

/// Runs `copiergen report`: prints the table; exit 0, or an error for an
/// unreadable file or a malformed site line (naming `FILE:LINE`). A file with no site line
/// prints a note (the program ran no CopierGen copy, or its stats were not
/// written).
pub fn run(a: &ReportArgs) -> Result<i32, Error> {
    let mut sites = BTreeMap::new();
    for f in &a.files {
        let text = std::fs::read(f).map_err(|e| Error::Usage(format!("cannot read {}: {e}", f.display())))?;
        add_lines(&f.display().to_string(), &String::from_utf8_lossy(&text), &mut sites).map_err(Error::Usage)?;
    }
    if sites.is_empty() {
        println!("no copy sites in the given files (run the program with COPIER_STATS_FILE=path, or COPIER_STATS=sites and save its stderr)");
        return Ok(0);
    }
    // (a closed pipe, `copiergen report f | head`, ends the output quietly)
    match std::io::Write::write_all(&mut std::io::stdout().lock(), render(&sites).as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::Io { context: "writing the report to stdout".to_owned(), source: e })
        }
        _ => Ok(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "copier: tasks=1 runtime_bytes=2 inline=0 absorbed_bytes=0 lazy_dropped=0 csync_waits=0 csync_wait_ns=0 pid=7\n\
copier: site a.c:3:5 fn=main runtime_copies=10 runtime_bytes=1000 async=10 observed=10 unpaid=9 window_ns=5000 wait_ns=4000 waits=9 state=inline pid=7\n\
copier: site b.c:9:1 fn=parse runtime_copies=4 runtime_bytes=4096 async=2 observed=2 unpaid=0 window_ns=2000000 wait_ns=0 waits=0 state=async pid=7\n\
copier: site a.c:3:5 fn=main runtime_copies=1 runtime_bytes=100 async=1 observed=1 unpaid=0 window_ns=100000 wait_ns=0 waits=0 state=learning pid=8\n";

    #[test]
    fn sums_by_site_over_processes() {
        let mut s = BTreeMap::new();
        add_lines("t.log", TWO, &mut s).unwrap();
        let a = &s["a.c:3:5\u{0}main"];
        assert_eq!((a.copies, a.bytes, a.asynchronous, a.observed, a.unpaid, a.processes), (11, 1100, 11, 11, 9, 2));
        assert_eq!(a.states.get("inline"), Some(&1));
        assert_eq!(a.states.get("learning"), Some(&1));
        let table = render(&s);
        let rows: Vec<&str> = table.lines().take_while(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 3, "{table}");
        assert!(rows[1].starts_with("b.c:9:1"), "largest bytes first: {table}");
        assert!(rows[2].contains("inline x1, learning x1"), "{table}");
    }

    #[test]
    fn sites_without_debug_info_stay_apart_by_function() {
        let mut s = BTreeMap::new();
        let lines = "copier: site ?:0:0 fn=a runtime_copies=1 runtime_bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning\n\
copier: site ?:0:0 fn=b runtime_copies=2 runtime_bytes=2 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning\n\
copier: site /tmp/sp%20dir/p.c:3:1 fn=c runtime_copies=u64::MAX runtime_bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning\n";
        assert!(add_lines("t.log", lines, &mut s).is_err(), "u64::MAX is not a number");
        let mut s = BTreeMap::new();
        add_lines("t.log", &lines.replace("u64::MAX", "18446744073709551615"), &mut s).unwrap();
        add_lines("u.log", "copier: site /tmp/sp%20dir/p.c:3:1 fn=c runtime_copies=5 runtime_bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning", &mut s).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s["/tmp/sp dir/p.c:3:1\u{0}c"].copies, u128::from(u64::MAX) + 5, "exact, not saturated");
        let table = render(&s);
        assert!(table.contains("/tmp/sp dir/p.c:3:1"), "{table}");
    }

    /// Trial finding: `copies=` read as every copy of the site (seen:
    /// 162 of 2000 calls), but copies the compiled code makes inline while
    /// nothing is pending never reach the runtime. The header and the
    /// legend say what the columns count; files written before the fields
    /// were named `runtime_copies=`/`runtime_bytes=` still read.
    #[test]
    fn columns_say_they_count_runtime_copies_and_old_files_still_read() {
        let mut s = BTreeMap::new();
        add_lines("new.log", TWO, &mut s).unwrap();
        add_lines("old.log", &TWO.replace("runtime_copies=", "copies=").replace("runtime_bytes=", "bytes="), &mut s).unwrap();
        let a = &s["a.c:3:5\u{0}main"];
        assert_eq!((a.copies, a.bytes, a.processes), (22, 2200, 4));
        let table = render(&s);
        let header = table.lines().next().unwrap();
        assert!(header.contains("runtime copies") && header.contains("runtime bytes"), "{table}");
        assert!(table.ends_with(LEGEND), "{table}");
        assert!(LEGEND.contains("called libcopier") && LEGEND.contains("not counted"), "{LEGEND}");
        let e = add_lines("x.log", "copier: site x.c:1:1 fn=f calls=1", &mut s).unwrap_err();
        assert!(e.contains("no runtime_copies="), "{e}");
    }

    /// Trial finding: sums saturated at u64::MAX silently, a wrong total
    /// the user was not told about. They are exact (u128).
    #[test]
    fn sums_past_u64_are_exact() {
        let line = |v: u64| format!("copier: site a.c:1:1 fn=f runtime_copies={v} runtime_bytes={v} async=0 observed=0 unpaid=0 window_ns={v} wait_ns=0 waits=0 state=async\n");
        let mut s = BTreeMap::new();
        add_lines("a.log", &line(u64::MAX).repeat(3), &mut s).unwrap();
        add_lines("b.log", &line(7), &mut s).unwrap();
        let t = &s["a.c:1:1\u{0}f"];
        let want = 3 * u128::from(u64::MAX) + 7;
        assert_eq!((t.copies, t.bytes, t.window_ns, t.processes), (want, want, want, 4));
        assert!(render(&s).contains(&want.to_string()), "{}", render(&s));
    }

    /// Malformed site lines are an error naming FILE:LINE and the field,
    /// never a panic or a partly added line.
    #[test]
    fn malformed_site_line_is_an_error() {
        let good = "copier: site x.c:1:1 fn=f runtime_copies=1 runtime_bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=async";
        for (bad, want) in [
            ("copier: site x.c:1:1 fn=f runtime_copies=abc runtime_bytes=1", "site x.c:1:1: runtime_copies=abc is not a number"),
            ("copier: site x.c:1:1 fn=f runtime_copies=1", "site x.c:1:1: no runtime_bytes="),
            ("copier: site x.c:1:1 fn=f runtime_copies=-1 runtime_bytes=1", "runtime_copies=-1 is not a number"),
            ("copier: site x.c:1:1 fn=f runtime_copies=18446744073709551616 runtime_bytes=1", "runtime_copies=18446744073709551616 is too large (over 64 bits)"),
            ("copier: site x.c:1:1 fn=f runtime_copies= runtime_bytes=1", "runtime_copies= is not a number"),
            ("copier: site ", "site line without a location"),
            ("copier: site x.c:1:1 fn=f runtime_copies=1 runtime_bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=", "waits= is not a number"),
            ("copier: site %%% fn=%ff%e2%8 runtime_copies=1 runtime_bytes=\u{e9}", "runtime_bytes=\u{e9} is not a number"),
        ] {
            let mut s = BTreeMap::new();
            let e = add_lines("run.log", &format!("{good}\nother output\n{bad}\n{good}\n"), &mut s).unwrap_err();
            assert!(e.starts_with("run.log:3: ") && e.contains(want), "{bad}: {e}");
            assert_eq!(s["x.c:1:1\u{0}f"].copies, 1, "only the line before: {bad}");
        }
    }
}
