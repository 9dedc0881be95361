//! `copiergen report`: the per-site table of a stats file.
//!
//! libcopier appends one line per CopierGen copy site to its stats file at
//! exit (`COPIER_STATS_FILE=path`, or stderr with `COPIER_STATS=sites`):
//! `copier: site FILE:LINE:COL fn=F copies=N bytes=N async=N observed=N
//! unpaid=N window_ns=N wait_ns=N waits=N state=S pid=N`
//! (`runtime/src/sites.rs`). The report sums them over every process by
//! site and prints one row each, largest byte count first, so a user sees
//! which copies ran asynchronously, how long their windows were and how
//! often the program waited for them.

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

/// One site's counters, summed over processes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SiteTotals {
    /// Enclosing function.
    pub function: String,
    /// Copies that reached the runtime (bytes below).
    pub copies: u64,
    /// Bytes of those copies.
    pub bytes: u64,
    /// Of them, submitted asynchronously.
    pub asynchronous: u64,
    /// Asynchronous copies observed until a wait covered them.
    pub observed: u64,
    /// Observed copies that did not pay (window minus wait below the
    /// runtime's `adapt_gain_ns`).
    pub unpaid: u64,
    /// Sum of the observed windows, ns.
    pub window_ns: u64,
    /// Sum of the time spent waiting for them, ns.
    pub wait_ns: u64,
    /// Observed copies the program had to wait for.
    pub waits: u64,
    /// Processes per final state (`learning`, `async`, `inline`).
    pub states: BTreeMap<String, u64>,
    /// Processes that reported the site.
    pub processes: u64,
}

/// Sums the site lines of `text` into `sites` (keyed by `FILE:LINE:COL`).
/// Other lines are ignored; a site line with a missing or malformed field
/// is an error naming it.
pub fn add_lines(text: &str, sites: &mut BTreeMap<String, SiteTotals>) -> Result<(), String> {
    for (no, line) in text.lines().enumerate() {
        let Some(at) = line.find("copier: site ") else { continue };
        let rest = &line[at + "copier: site ".len()..];
        let mut words = rest.split_whitespace();
        let Some(loc) = words.next() else { return Err(format!("line {}: site line without a location", no + 1)) };
        let mut fields: BTreeMap<&str, &str> = BTreeMap::new();
        for w in words {
            if let Some((k, v)) = w.split_once('=') {
                fields.insert(k, v);
            }
        }
        let num = |k: &str| -> Result<u64, String> {
            fields
                .get(k)
                .ok_or_else(|| format!("line {}: site {loc}: no {k}=", no + 1))?
                .parse::<u64>()
                .map_err(|_| format!("line {}: site {loc}: {k}= is not a number", no + 1))
        };
        let function = unescape(fields.get("fn").copied().unwrap_or("?"));
        // One row per location and function: without debug information
        // every location is `?:0:0`.
        let t = sites.entry(format!("{}\u{0}{function}", unescape(loc))).or_default();
        t.function = function;
        let add = |a: &mut u64, v: u64| *a = a.saturating_add(v);
        add(&mut t.copies, num("copies")?);
        add(&mut t.bytes, num("bytes")?);
        add(&mut t.asynchronous, num("async")?);
        add(&mut t.observed, num("observed")?);
        add(&mut t.unpaid, num("unpaid")?);
        add(&mut t.window_ns, num("window_ns")?);
        add(&mut t.wait_ns, num("wait_ns")?);
        add(&mut t.waits, num("waits")?);
        *t.states.entry(fields.get("state").copied().unwrap_or("?").to_owned()).or_default() += 1;
        t.processes += 1;
    }
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

fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn mean_us(total_ns: u64, n: u64) -> String {
    if n == 0 {
        "-".to_owned()
    } else {
        format!("{:.1} us", total_ns as f64 / n as f64 / 1000.0)
    }
}

/// The table: one row per site, largest byte count first.
pub fn render(sites: &BTreeMap<String, SiteTotals>) -> String {
    let mut rows: Vec<(&String, &SiteTotals)> = sites.iter().collect();
    rows.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then(a.0.cmp(b.0)));
    let mut out = format!(
        "{:<40} {:<24} {:>9} {:>10} {:>7} {:>12} {:>7} {:>12} {:>8}  state\n",
        "site", "function", "copies", "bytes", "async", "mean window", "waits", "mean wait", "unpaid"
    );
    for (key, t) in rows {
        let loc = key.split('\u{0}').next().unwrap_or(key);
        let async_pct = if t.copies == 0 { 0.0 } else { 100.0 * t.asynchronous as f64 / t.copies as f64 };
        // (a site line per process, or per copy of a runtime in a process)
        let states: Vec<String> = t.states.iter().map(|(s, n)| if t.processes > 1 { format!("{s} x{n}") } else { s.clone() }).collect();
        out += &format!(
            "{:<40} {:<24} {:>9} {:>10} {:>6.0}% {:>12} {:>7} {:>12} {:>8}  {}\n",
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
    out
}

/// Runs `copiergen report`: prints the table; exit 0, or an error for an
/// unreadable file or a malformed site line. A file with no site line
/// prints a note (the program ran no CopierGen copy, or its stats were not
/// written).
pub fn run(a: &ReportArgs) -> Result<i32, Error> {
    let mut sites = BTreeMap::new();
    for f in &a.files {
        let text = std::fs::read(f).map_err(|e| Error::Usage(format!("cannot read {}: {e}", f.display())))?;
        add_lines(&String::from_utf8_lossy(&text), &mut sites).map_err(|e| Error::Usage(format!("{}: {e}", f.display())))?;
    }
    if sites.is_empty() {
        println!("no copy sites in the given files (run the program with COPIER_STATS_FILE=path, or COPIER_STATS=sites and save its stderr)");
        return Ok(0);
    }
    print!("{}", render(&sites));
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "copier: tasks=1 bytes=2 inline=0 absorbed_bytes=0 lazy_dropped=0 csync_waits=0 csync_wait_ns=0 pid=7\n\
copier: site a.c:3:5 fn=main copies=10 bytes=1000 async=10 observed=10 unpaid=9 window_ns=5000 wait_ns=4000 waits=9 state=inline pid=7\n\
copier: site b.c:9:1 fn=parse copies=4 bytes=4096 async=2 observed=2 unpaid=0 window_ns=2000000 wait_ns=0 waits=0 state=async pid=7\n\
copier: site a.c:3:5 fn=main copies=1 bytes=100 async=1 observed=1 unpaid=0 window_ns=100000 wait_ns=0 waits=0 state=learning pid=8\n";

    #[test]
    fn sums_by_site_over_processes() {
        let mut s = BTreeMap::new();
        add_lines(TWO, &mut s).unwrap();
        let a = &s["a.c:3:5\u{0}main"];
        assert_eq!((a.copies, a.bytes, a.asynchronous, a.observed, a.unpaid, a.processes), (11, 1100, 11, 11, 9, 2));
        assert_eq!(a.states.get("inline"), Some(&1));
        assert_eq!(a.states.get("learning"), Some(&1));
        let table = render(&s);
        let rows: Vec<&str> = table.lines().collect();
        assert_eq!(rows.len(), 3, "{table}");
        assert!(rows[1].starts_with("b.c:9:1"), "largest bytes first: {table}");
        assert!(rows[2].contains("inline x1, learning x1"), "{table}");
    }

    #[test]
    fn sites_without_debug_info_stay_apart_by_function() {
        let mut s = BTreeMap::new();
        let lines = "copier: site ?:0:0 fn=a copies=1 bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning\n\
copier: site ?:0:0 fn=b copies=2 bytes=2 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning\n\
copier: site /tmp/sp%20dir/p.c:3:1 fn=c copies=u64::MAX bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning\n";
        assert!(add_lines(lines, &mut s).is_err(), "u64::MAX is not a number");
        let mut s = BTreeMap::new();
        add_lines(&lines.replace("u64::MAX", "18446744073709551615"), &mut s).unwrap();
        add_lines("copier: site /tmp/sp%20dir/p.c:3:1 fn=c copies=5 bytes=1 async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=learning", &mut s).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s["/tmp/sp dir/p.c:3:1\u{0}c"].copies, u64::MAX, "saturates");
        let table = render(&s);
        assert!(table.contains("/tmp/sp dir/p.c:3:1"), "{table}");
    }

    #[test]
    fn malformed_site_line_is_an_error() {
        let mut s = BTreeMap::new();
        let e = add_lines("copier: site x.c:1:1 fn=f copies=abc bytes=1", &mut s).unwrap_err();
        assert!(e.contains("copies= is not a number"), "{e}");
        let e = add_lines("copier: site x.c:1:1 fn=f copies=1", &mut s).unwrap_err();
        assert!(e.contains("no bytes="), "{e}");
    }
}
