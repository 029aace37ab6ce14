//! irtrack's differential tester (issue 11): random well-typed Rust functions, each compiled
//! plain and `#[tracked]`, checked against each other, against `Trace::verify` and against
//! finite differences. docs/testing.md describes it; `tests/difftest.rs` runs it.
//!
//! - [`ast`]: the generated programs and their printing as Rust.
//! - [`gen`]: the generator (types and scopes tracked, so every program is well typed).
//! - [`emit`]: the generated crate's `main.rs`; `checker.rs` is copied in beside it.
//! - [`minimise`]: delta debugging of a failing unit.
//! - this module: writing, building and running the generated crate, and reading its report.

pub mod ast;
pub mod emit;
pub mod gen;
pub mod minimise;

use emit::{Case, Lines};
use gen::Features;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The checks of `checker.rs`, compiled into the generated crate only.
const CHECKER: &str = include_str!("checker.rs");

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// The first unit's number (units are numbered from 0 in a run; unit `k` of a seed is
    /// always the same program).
    pub first: usize,
    pub count: usize,
    /// Units per generated crate build.
    pub batch: usize,
    pub features: Features,
    /// Build the generated crate with `--release`.
    pub release: bool,
    /// How many distinct kinds of failure to minimise (the first failure of each).
    pub minimise: usize,
    /// The workspace root: `target/difftest/` is under it.
    pub root: PathBuf,
    /// The `irtrack` package the generated crates depend on (the workspace root unless
    /// `IRTRACK_DIFFTEST_IRTRACK` names another checkout, such as a snapshot of a commit).
    pub irtrack: PathBuf,
}

impl Config {
    /// The CI defaults, changed by `IRTRACK_DIFFTEST_SEED`, `_FIRST`, `_COUNT`, `_BATCH`, `_FEATURES`,
    /// `_RELEASE` (`1`) and `_MINIMISE` (a number).
    pub fn from_env(root: &Path) -> Config {
        let var = |k: &str| std::env::var(format!("IRTRACK_DIFFTEST_{k}")).ok();
        let num = |k: &str, d: u64| {
            var(k).map_or(d, |v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("IRTRACK_DIFFTEST_{k}={v}: not a number"))
            })
        };
        let features = match var("FEATURES") {
            Some(f) => {
                Features::parse(&f).unwrap_or_else(|e| panic!("IRTRACK_DIFFTEST_FEATURES: {e}"))
            }
            None => Features::ci(),
        };
        Config {
            seed: num("SEED", 11),
            first: num("FIRST", 0) as usize,
            count: num("COUNT", 300) as usize,
            batch: num("BATCH", 400) as usize,
            features,
            release: var("RELEASE").is_some_and(|v| v == "1"),
            minimise: num("MINIMISE", 1) as usize,
            root: root.to_path_buf(),
            irtrack: var("IRTRACK").map_or(root.to_path_buf(), PathBuf::from),
        }
    }
}

/// What the checks said about one unit.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass {
        /// Gradient calls that returned a `GradError`, and their kinds.
        refused: usize,
        refusals: Vec<String>,
        /// (input, coordinate) pairs where finite differences were unreliable.
        skipped: usize,
        /// (input, coordinate) pairs compared with finite differences.
        compared: usize,
        /// Gradient calls that returned `Ok`.
        gradients: usize,
        /// `vjp` calls that returned cotangents, that were refused, and the (input,
        /// coordinate) pairs compared.
        vjps: usize,
        vjp_refused: usize,
        vjp_compared: usize,
        /// Programs checked at the recorded point, and the other points where they gave a
        /// value (compared with the function) or an error.
        replays: usize,
        replay_compared: usize,
        replay_refused: usize,
    },
    Fail {
        check: String,
        message: String,
    },
}

impl Verdict {
    /// The kind of a failure, for telling failures apart: the check, and for a compile error its
    /// error code.
    pub fn kind(&self) -> Option<String> {
        match self {
            Verdict::Pass { .. } => None,
            Verdict::Fail { check, message } if check.starts_with("compile") => {
                let first = message.lines().next().unwrap_or("");
                let code = first
                    .strip_prefix("error[")
                    .and_then(|r| r.split(']').next())
                    .map(str::to_string)
                    .unwrap_or_else(|| first.chars().take(60).collect());
                Some(format!("{check} {code}"))
            }
            Verdict::Fail { check, .. } => Some(check.clone()),
        }
    }
}

/// A generated crate on disk: where it is and what it is called.
pub struct Crate {
    pub dir: PathBuf,
    pub package: String,
    pub target: PathBuf,
    pub release: bool,
    pub irtrack: PathBuf,
    /// How long a unit may run before it is taken for a hang.
    pub timeout: Duration,
}

impl Crate {
    pub fn new(cfg: &Config, name: &str, package: &str) -> Crate {
        let base = cfg.root.join("target").join("difftest");
        Crate {
            dir: base.join(name),
            package: package.to_string(),
            target: base.join("target"),
            release: cfg.release,
            irtrack: cfg.irtrack.clone(),
            timeout: Duration::from_secs(120),
        }
    }

    fn write_manifest(&self) {
        std::fs::create_dir_all(self.dir.join("src")).unwrap();
        let manifest = format!(
            "# Generated by irtrack's tests/difftest.\n\
             [package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nirtrack = {{ path = {:?} }}\nrand = \"0.9\"\n\n\
             [profile.dev]\noverflow-checks = false\ndebug = false\nincremental = false\n\n\
             [profile.release]\noverflow-checks = false\ndebug = false\n\n\
             [workspace]\n",
            self.package,
            self.irtrack.display().to_string()
        );
        write_if_changed(&self.dir.join("Cargo.toml"), &manifest);
        // The workspace's lock file, so the versions are the ones irtrack is tested with.
        if !self.dir.join("Cargo.lock").exists() {
            std::fs::copy(self.irtrack.join("Cargo.lock"), self.dir.join("Cargo.lock")).unwrap();
        }
        write_if_changed(&self.dir.join("src").join("checker.rs"), CHECKER);
    }

    fn cargo(&self) -> Command {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_TERM_COLOR", "never")
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_MAKEFLAGS")
            .env_remove("MAKEFLAGS")
            .env_remove("MFLAGS");
        cmd
    }

    fn binary(&self) -> PathBuf {
        let profile = if self.release { "release" } else { "debug" };
        self.target.join(profile).join(&self.package)
    }

    /// Builds and runs `cases`; a case that does not compile gets a failure verdict (the
    /// others are built again without it).
    pub fn check(
        &self,
        cases: &[Case],
        log: &mut dyn FnMut(&str),
    ) -> Result<BTreeMap<String, Verdict>, String> {
        self.write_manifest();
        let mut verdicts = BTreeMap::new();
        let mut live: Vec<Case> = cases.to_vec();
        let started = Instant::now();
        for round in 0.. {
            let emitted = emit::main_rs(&live);
            write_if_changed(&self.dir.join("src").join("main.rs"), &emitted.text);
            let mut cmd = self.cargo();
            cmd.arg("build").arg("--quiet");
            if self.release {
                cmd.arg("--release");
            }
            let out = cmd.output().expect("running cargo for the generated crate");
            if out.status.success() {
                break;
            }
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let blamed = blame(&stderr, &emitted.lines);
            if blamed.is_empty() || round >= 8 {
                return Err(format!(
                    "the generated crate in {} does not build, and no unit can be blamed:\n{stderr}",
                    self.dir.display()
                ));
            }
            for (name, v) in blamed {
                verdicts.insert(name, v);
            }
            live.retain(|c| !verdicts.contains_key(&c.name));
            log(&format!(
                "  build round {}: {} unit(s) do not compile, building the other {}",
                round + 1,
                verdicts.len(),
                live.len()
            ));
        }
        log(&format!(
            "  built {} units in {:.0?}",
            live.len(),
            started.elapsed()
        ));
        let started = Instant::now();
        let results = self.run(&live);
        log(&format!("  ran them in {:.0?}", started.elapsed()));
        verdicts.extend(results);
        Ok(verdicts)
    }

    /// Runs the built program from each unit on, until every unit has a verdict: a crash or a
    /// hang is the verdict of the unit it happened in.
    fn run(&self, cases: &[Case]) -> BTreeMap<String, Verdict> {
        let mut verdicts = BTreeMap::new();
        let mut from = 0;
        while from < cases.len() {
            let mut child = Command::new(self.binary())
                .arg(from.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("running the generated program");
            let stdout = child.stdout.take().unwrap();
            let mut stderr = child.stderr.take().unwrap();
            let err_reader = std::thread::spawn(move || {
                let mut s = String::new();
                let _ = stderr.read_to_string(&mut s);
                s
            });
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            let mut current: Option<String> = None;
            let mut done = false;
            let mut hung = false;
            loop {
                match rx.recv_timeout(self.timeout) {
                    Ok(line) => {
                        if let Some(name) = line.strip_prefix("START ") {
                            current = Some(name.to_string());
                        } else if let Some(rest) = line.strip_prefix("RESULT ") {
                            let (name, v) = parse_result(rest);
                            verdicts.insert(name, v);
                            current = None;
                        } else if line == "DONE" {
                            done = true;
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        hung = true;
                        let _ = child.kill();
                        break;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            let status = child.wait().ok();
            let err = err_reader.join().unwrap_or_default();
            if done {
                break;
            }
            let Some(name) = current else {
                panic!("the generated program stopped between units ({status:?}):\n{err}");
            };
            let tail: String = err
                .lines()
                .rev()
                .take(30)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            let message = if hung {
                format!(
                    "no result after {:?}: a hang (the generated code is bounded)",
                    self.timeout
                )
            } else {
                format!("the program died ({status:?}) in this unit:\n{tail}")
            };
            verdicts.insert(
                name.clone(),
                Verdict::Fail {
                    check: if hung { "hang".into() } else { "crash".into() },
                    message,
                },
            );
            from = cases.iter().position(|c| c.name == name).unwrap() + 1;
        }
        verdicts
    }
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap();
    }
}

fn parse_result(rest: &str) -> (String, Verdict) {
    let mut parts = rest.splitn(3, ' ');
    let name = parts.next().unwrap_or("").to_string();
    let status = parts.next().unwrap_or("");
    let tail = parts.next().unwrap_or("");
    let v = if status == "pass" {
        let mut fields = BTreeMap::new();
        for kv in tail.split(' ') {
            if let Some((k, v)) = kv.split_once('=') {
                fields.insert(k, v);
            }
        }
        let n = |k: &str| fields.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
        Verdict::Pass {
            refused: n("refused"),
            refusals: fields
                .get("refusals")
                .map(|v| {
                    v.split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            skipped: n("skipped"),
            compared: n("compared"),
            gradients: n("gradients"),
            vjps: n("vjps"),
            vjp_refused: n("vjp_refused"),
            vjp_compared: n("vjp_compared"),
            replays: n("replays"),
            replay_compared: n("replay_compared"),
            replay_refused: n("replay_refused"),
        }
    } else {
        let (check, message) = tail.split_once(' ').unwrap_or((tail, ""));
        Verdict::Fail {
            check: check.to_string(),
            message: unescape(message),
        }
    };
    (name, v)
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The units the compiler's errors point at: an error in a tracked copy is a failure of
/// irtrack (`compile-tracked`), one in a plain copy or a check function a bug of the generator.
fn blame(stderr: &str, lines: &[Lines]) -> BTreeMap<String, Verdict> {
    let mut out: BTreeMap<String, Verdict> = BTreeMap::new();
    let mut diagnostics: Vec<String> = Vec::new();
    for l in stderr.lines() {
        let starts = l.starts_with("error") || l.starts_with("warning");
        if starts || diagnostics.is_empty() {
            diagnostics.push(String::new());
        }
        let d = diagnostics.last_mut().unwrap();
        d.push_str(l);
        d.push('\n');
    }
    for d in diagnostics.iter().filter(|d| d.starts_with("error")) {
        let Some(line) = d.lines().find_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix("--> ").or_else(|| l.strip_prefix("::: "))?;
            let rest = rest.strip_prefix("src/main.rs:")?;
            rest.split(':').next()?.parse::<usize>().ok()
        }) else {
            continue;
        };
        let Some(unit) = lines.iter().find(|u| line >= u.plain.0 && line < u.check.1) else {
            continue;
        };
        let check = if line >= unit.tracked.0 && line < unit.tracked.1 {
            "compile-tracked"
        } else {
            "generator"
        };
        let entry = out.entry(unit.name.clone()).or_insert(Verdict::Fail {
            check: check.into(),
            message: String::new(),
        });
        if let Verdict::Fail { check: c, message } = entry {
            // A plain error makes the unit a generator bug whatever the tracked copy says.
            if check == "generator" && c != "generator" {
                *c = "generator".into();
                message.clear();
            }
            if c == check && message.matches("\nerror").count() < 3 {
                message.push_str(d);
            }
        }
    }
    out
}

/// Everything a run found.
#[derive(Default)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    /// Units whose gradient was refused (a `GradError`) at one input or more.
    pub refused_units: usize,
    pub refused_calls: usize,
    pub refusal_kinds: BTreeMap<String, usize>,
    pub skipped: usize,
    pub compared: usize,
    pub gradients: usize,
    /// `vjp` calls that returned cotangents and that were refused, and pairs compared.
    pub vjps: usize,
    pub vjp_refused: usize,
    pub vjp_compared: usize,
    /// Programs checked, and the points after the recorded one where they gave a value or an
    /// error.
    pub replays: usize,
    pub replay_compared: usize,
    pub replay_refused: usize,
    /// Failing cases with their verdicts, in order.
    pub failures: Vec<(Case, Verdict)>,
    /// Failure counts by kind.
    pub kinds: BTreeMap<String, usize>,
    pub elapsed: Duration,
}

impl Summary {
    /// `N passed, M failed, R gradient refused, S points skipped`.
    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} gradient refused, {} points skipped",
            self.passed, self.failed, self.refused_units, self.skipped
        )
    }

    pub fn details(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "gradients: {} calls returned a gradient, {} refused; {} (input, coordinate) pairs compared with finite differences, {} skipped",
            self.gradients, self.refused_calls, self.compared, self.skipped
        );
        let _ = writeln!(
            s,
            "vjp: {} calls returned cotangents, {} refused; {} (input, coordinate) pairs compared with finite differences",
            self.vjps, self.vjp_refused, self.vjp_compared
        );
        let _ = writeln!(
            s,
            "replay: {} programs gave the recorded value; at other points {} gave the function's value, {} an error",
            self.replays, self.replay_compared, self.replay_refused
        );
        if !self.refusal_kinds.is_empty() {
            let kinds: Vec<String> = self
                .refusal_kinds
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            let _ = writeln!(s, "refusals by kind: {}", kinds.join(", "));
        }
        if !self.kinds.is_empty() {
            let kinds: Vec<String> = self
                .kinds
                .iter()
                .map(|(k, n)| format!("{k}: {n}"))
                .collect();
            let _ = writeln!(s, "failures by kind: {}", kinds.join("; "));
        }
        s
    }
}

/// Unit `k` of a run with seed `seed`: its generator's seed and its inputs' seed.
pub fn unit_seeds(seed: u64, k: usize) -> (u64, u64) {
    let base =
        seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    (base, base ^ 0x5555_5555_5555_5555)
}

pub fn case(cfg: &Config, k: usize) -> Case {
    let (g, i) = unit_seeds(cfg.seed, k);
    Case {
        name: format!("u{k}"),
        unit: gen::unit(StdRng::seed_from_u64(g), cfg.features),
        input_seed: i,
    }
}

/// Generates, builds and checks `cfg.count` units in batches.
pub fn run(cfg: &Config, log: &mut dyn FnMut(&str)) -> Summary {
    let started = Instant::now();
    let krate = Crate::new(cfg, &format!("{}", cfg.seed), "difftest_gen");
    let mut sum = Summary::default();
    let _ = std::fs::remove_dir_all(krate.dir.join("failures"));
    let mut k = cfg.first;
    let end = cfg.first + cfg.count;
    while k < end {
        let n = cfg.batch.min(end - k);
        log(&format!("units {}..{} (seed {}):", k, k + n, cfg.seed));
        let cases: Vec<Case> = (k..k + n).map(|i| case(cfg, i)).collect();
        let verdicts = krate.check(&cases, log).unwrap_or_else(|e| panic!("{e}"));
        for c in &cases {
            let v = verdicts.get(&c.name).cloned().unwrap_or(Verdict::Fail {
                check: "missing".into(),
                message: "the generated program printed no result for this unit".into(),
            });
            match &v {
                Verdict::Pass {
                    refused,
                    refusals,
                    skipped,
                    compared,
                    gradients,
                    vjps,
                    vjp_refused,
                    vjp_compared,
                    replays,
                    replay_compared,
                    replay_refused,
                } => {
                    sum.passed += 1;
                    sum.refused_units += usize::from(*refused > 0);
                    sum.refused_calls += refused;
                    for r in refusals {
                        *sum.refusal_kinds.entry(r.clone()).or_default() += 1;
                    }
                    sum.skipped += skipped;
                    sum.compared += compared;
                    sum.gradients += gradients;
                    sum.vjps += vjps;
                    sum.vjp_refused += vjp_refused;
                    sum.vjp_compared += vjp_compared;
                    sum.replays += replays;
                    sum.replay_compared += replay_compared;
                    sum.replay_refused += replay_refused;
                }
                Verdict::Fail { .. } => {
                    // Every failing unit, unminimised, for reading later.
                    let dir = krate.dir.join("failures");
                    let _ = std::fs::create_dir_all(&dir);
                    let _ = std::fs::write(dir.join(format!("{}.txt", c.name)), report(c, &v));
                    sum.failed += 1;
                    *sum.kinds.entry(v.kind().unwrap()).or_default() += 1;
                    sum.failures.push((c.clone(), v));
                }
            }
        }
        log(&format!("  so far: {}", sum.line()));
        k += n;
    }
    sum.elapsed = started.elapsed();
    sum
}

/// The report of a failing case: its check, its message and the program.
pub fn report(case: &Case, v: &Verdict) -> String {
    let mut s = String::new();
    if let Verdict::Fail { check, message } = v {
        let _ = writeln!(s, "check: {check}");
        let _ = writeln!(s, "{}", message.trim_end());
    }
    let _ = writeln!(
        s,
        "program (the tracked copy; the plain copy is the same without the attributes):"
    );
    s.push_str(&case.unit.print(true));
    s
}
