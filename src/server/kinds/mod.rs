//! The sandbox kinds: one file (or folder) per kind, implementing
//! [`SandboxKind`], and one line each in [`KINDS`], the only list of them.
//! Everything a kind does differently (its programs, ports, account,
//! settings, start, readiness and stop) is asked of it here; what every
//! kind shares is in `server::common`.

mod mariadb;
mod patroni;
mod pgbouncer;
mod postgres;
mod tidb;
mod vitess;

// A cluster's layout is part of every sandbox's state file (its `cluster` field).
pub use patroni::Cluster;
pub use vitess::Shards;

use super::common::{signal_and_wait, Bins};
use super::{Sandbox, StartOpts};
use crate::error::Result;
use crate::usage;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every sandbox kind, in the order `server profiles` shows their settings.
const KINDS: &[&dyn SandboxKind] = &[&mariadb::Mariadb, &postgres::Postgres, &tidb::Tidb, &patroni::Patroni, &vitess::Vitess, &pgbouncer::Pgbouncer];

/// The processes of a sandbox that runs many (a cluster's nodes, a sharded
/// keyspace's tablets and routers), found and stopped by the kind's rules.
pub trait Processes: Sync {
    fn is_running(&self, sb: &Sandbox) -> bool;
    /// Each in the order that loses nothing, then a kill after `limit`.
    fn stop(&self, sb: &Sandbox, limit: Duration);
    fn kill(&self, sb: &Sandbox);
}

/// What a kind of sandbox is: the programs it runs and how it starts,
/// answers and stops them. A method with a default is one most kinds
/// share; a kind overrides it only where it differs.
pub trait SandboxKind: Sync {
    /// Its name on the command line, in sandbox names and in the state file.
    fn name(&self) -> &'static str;

    /// Other names `server start` takes for it.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// The profiles' section it reads; another kind's when its servers are that kind's.
    fn profile_section(&self) -> &'static str {
        self.name()
    }

    /// A note when a profile has no section for it (None: its defaults, unsaid).
    fn without_profile_section(&self, _profile: &str) -> Option<String> {
        None
    }

    /// A size of `mib` MiB written in the unit its settings read.
    fn size_setting(&self, mib: u64) -> String;

    /// Where its ports are looked for when no --port is given.
    fn default_port(&self) -> u16;

    /// The ports a sandbox takes from its port on.
    fn ports(&self) -> u16 {
        1
    }

    /// Adds the start options only it takes (its clap `Args` struct, in
    /// its own file) to `server start`; it reads them back with
    /// [`KindArgs::get`]. Another kind's options are refused before
    /// anything is looked up.
    fn augment_args(&self, cmd: clap::Command) -> clap::Command {
        cmd
    }

    /// Options it does not take, or values it does not accept, refused
    /// before anything is looked up.
    fn check(&self, _o: &StartOpts) -> Result<()> {
        Ok(())
    }

    /// Its programs, or which package to install.
    fn binaries(&self) -> Result<Bins>;

    /// Its build of `version`, fetched once (`--version`).
    fn fetch(&self, version: &str) -> Result<super::builds::Build> {
        Err(crate::usage!("--version {version}: {} builds are not fetched by version; give --basedir DIR of an installed build", self.name()))
    }

    /// Its programs in `dir`, a build of the user's choice (`--basedir`, `--version`).
    fn binaries_in(&self, _dir: &std::path::Path) -> Result<Bins> {
        Err(crate::usage!("{}: --basedir and --version take a build of a one-process server (mariadb, postgres, tidb), not of this engine", self.name()))
    }

    /// The packaged account its server runs as when fairbench runs as root
    /// (None: it runs as fairbench does).
    fn service_user(&self) -> Option<&'static str>;

    /// The version its server reports, e.g. `10.11.19-MariaDB`.
    fn version(&self, b: &Bins) -> String;

    /// Settings the installed server knows, by name with `-` as `_` (empty:
    /// unknown until it runs, every name is left to it).
    fn known_settings(&self, b: &Bins, user: &Option<String>) -> BTreeSet<String>;

    /// Settings it judges itself although they are not in its list (a
    /// plugin's, or ones it ignores when unknown).
    fn left_to_server(&self, key: &str) -> bool;

    /// Checks the resolved settings, dropping (with a note) or refusing
    /// what it manages itself.
    fn check_settings(&self, _settings: &mut Vec<(String, String)>, _notes: &mut Vec<String>, _sets: &[(String, String)]) -> Result<()> {
        Ok(())
    }

    /// A second port it needs besides its block, claimed once the block is.
    fn status_port(&self, _port: u16) -> Result<Option<u16>> {
        Ok(None)
    }

    /// Its socket, URL and any layout of its own, from the claimed port and
    /// directory (`sb.dir`, `sb.port`), before anything is written.
    fn lay_out(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins);

    /// Makes its data and starts it in `sb.dir` (the state file is written),
    /// returning once it accepts connections. The caller kills what is left
    /// on error.
    fn start(&self, o: &StartOpts, sb: &mut Sandbox, b: &Bins, user: &Option<String>) -> Result<()>;

    /// Files that may hold its server's pid, in the order they are read: the
    /// first that names a process running from the sandbox's directory wins.
    fn pid_files(&self, dir: &Path) -> Vec<PathBuf>;

    /// Its processes, when it runs many (a cluster) that its own rules
    /// find and stop; None: one server, found by its pid file.
    fn processes(&self) -> Option<&'static dyn Processes> {
        None
    }

    /// Whether its server runs.
    fn is_running(&self, sb: &Sandbox) -> bool {
        match self.processes() {
            Some(p) => p.is_running(sb),
            None => super::common::server_pid(sb).is_some(),
        }
    }

    /// The signal that shuts its server down cleanly (SIGTERM for most;
    /// TiDB's then waits up to 15 s for open transactions).
    fn stop_signal(&self) -> i32 {
        libc::SIGTERM
    }

    /// A clean shutdown, then a kill after `limit`.
    fn stop(&self, sb: &Sandbox, limit: Duration) {
        match self.processes() {
            Some(p) => p.stop(sb, limit),
            None if !signal_and_wait(sb, self.stop_signal(), limit) => self.kill(sb),
            None => {}
        }
    }

    /// Ends a server that never became ready (failed start, Ctrl-C).
    fn kill(&self, sb: &Sandbox) {
        match self.processes() {
            Some(p) => p.kill(sb),
            None => {
                signal_and_wait(sb, libc::SIGKILL, Duration::from_secs(5));
            }
        }
    }

    /// What it writes into a directory the user gave, removed at stop.
    fn files(&self) -> &'static [&'static str];

    /// Directories of its own it makes there (a cluster's nodes).
    fn dirs(&self, _sb: &Sandbox) -> Vec<PathBuf> {
        vec![]
    }

    /// `export` lines after the ones every sandbox has.
    fn env_lines(&self, _sb: &Sandbox, _quote: &dyn Fn(&str) -> String) -> String {
        String::new()
    }

    /// Lines to say once it is up besides its URL.
    fn details(&self, _sb: &Sandbox) -> Vec<String> {
        vec![]
    }

    /// The pool a connection pooler sandbox gives its clients (its program, mode and size), as
    /// a run through it records it; None for a server.
    fn pool(&self, _sb: &Sandbox) -> Option<String> {
        None
    }
}

/// A registered sandbox kind.
#[derive(Clone, Copy)]
pub struct Kind(&'static dyn SandboxKind);

impl std::ops::Deref for Kind {
    type Target = dyn SandboxKind;
    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl PartialEq for Kind {
    fn eq(&self, other: &Kind) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Kind {}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Kind {
    /// Every registered kind.
    pub fn all() -> impl Iterator<Item = Kind> + Clone {
        KINDS.iter().map(|k| Kind(*k))
    }

    /// The kinds with profile settings of their own, in the order `server
    /// profiles` shows them.
    pub fn with_own_settings() -> impl Iterator<Item = Kind> {
        Kind::all().filter(|k| k.profile_section() == k.name())
    }

    /// A kind by its name or an alias, in any case.
    pub fn parse(s: &str) -> Result<Kind> {
        let s = s.to_ascii_lowercase();
        Kind::all().find(|k| k.name() == s || k.aliases().contains(&s.as_str())).ok_or_else(|| usage!("unknown server {s:?}: use {}", Kind::names()))
    }

    /// Every kind's name, as a help text lists them: `a, b or c`.
    pub fn names() -> String {
        let names: Vec<&str> = Kind::all().map(|k| k.name()).collect();
        let (last, rest) = names.split_last().expect("a registered kind");
        format!("{} or {last}", rest.join(", "))
    }

    /// The kind a state file names; one it does not know is read as the
    /// first registered.
    pub(super) fn of(engine: &str) -> Kind {
        Kind::parse(engine).unwrap_or(Kind(KINDS[0]))
    }
}

/// The start options of every kind, as `server start` parsed them (each
/// kind declares its own in its file); none when a sandbox is started by
/// another command (a sweep, a scenario), whose kinds take their defaults.
#[derive(Clone, Debug, Default)]
pub struct KindArgs(Option<clap::ArgMatches>);

impl KindArgs {
    /// A kind's own options `T`: as given, else their defaults.
    pub(crate) fn get<T: clap::FromArgMatches + Default>(&self) -> Result<T> {
        match &self.0 {
            Some(m) => T::from_arg_matches(m).map_err(|e| usage!("{}", crate::error::one_line(&e.to_string()))),
            None => Ok(T::default()),
        }
    }

    /// Refuses an option given on the command line that another kind than
    /// `kind` declares: one line naming the kind that takes it.
    pub(crate) fn refuse_others(&self, kind: Kind) -> Result<()> {
        let Some(m) = &self.0 else { return Ok(()) };
        for other in Kind::all().filter(|k| *k != kind) {
            let cmd = other.0.augment_args(clap::Command::new("start"));
            for a in cmd.get_arguments() {
                if m.value_source(a.get_id().as_str()) == Some(clap::parser::ValueSource::CommandLine) {
                    let long = a.get_long().unwrap_or(a.get_id().as_str());
                    return Err(usage!("--{long} is an option of `fairbench server start {}`, not of {}", other.name(), kind.name()));
                }
            }
        }
        Ok(())
    }
}

impl clap::FromArgMatches for KindArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
        Ok(KindArgs(Some(m.clone())))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> std::result::Result<(), clap::Error> {
        self.0 = Some(m.clone());
        Ok(())
    }
}

impl clap::Args for KindArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        KINDS.iter().fold(cmd, |c, k| k.augment_args(c))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// `SCHEME://USER:PASSWORD@127.0.0.1:PORT/DATABASE`.
pub(super) fn url(scheme: &str, o: &StartOpts, port: u16) -> String {
    format!("{scheme}://{}:{}@127.0.0.1:{port}/{}", o.user, o.password, o.database)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(argv: &[&str]) -> KindArgs {
        let cmd = <KindArgs as clap::Args>::augment_args(clap::Command::new("start"));
        <KindArgs as clap::FromArgMatches>::from_arg_matches(&cmd.try_get_matches_from(std::iter::once("start").chain(argv.iter().copied())).unwrap()).unwrap()
    }

    /// A kind's options are its own: given to another kind, one line names
    /// the kind that takes them; given to it, or not given, nothing is refused.
    #[test]
    fn a_kinds_own_options_are_refused_to_the_others() {
        let (patroni, vitess, mariadb) = (Kind::parse("patroni").unwrap(), Kind::parse("vitess").unwrap(), Kind::parse("mariadb").unwrap());
        let e = given(&["--nodes", "3"]).refuse_others(mariadb).unwrap_err().to_string();
        assert!(e.contains("--nodes") && e.contains("server start patroni"), "{e}");
        let e = given(&["--shards", "2"]).refuse_others(patroni).unwrap_err().to_string();
        assert!(e.contains("--shards") && e.contains("server start vitess"), "{e}");
        assert!(given(&["--nodes", "3", "--sync"]).refuse_others(patroni).is_ok());
        assert!(given(&["--transaction-mode", "single"]).refuse_others(vitess).is_ok());
        assert!(given(&[]).refuse_others(mariadb).is_ok());
        assert!(KindArgs::default().refuse_others(mariadb).is_ok());
    }

    #[test]
    fn names_and_aliases_are_each_one_kinds() {
        let mut seen = BTreeSet::new();
        for k in Kind::all() {
            for n in std::iter::once(k.name()).chain(k.aliases().iter().copied()) {
                assert!(seen.insert(n), "{n} names two kinds");
                assert_eq!(Kind::parse(&n.to_ascii_uppercase()).unwrap(), k);
            }
        }
        let e = Kind::parse("oracle").unwrap_err().to_string();
        assert!(e.contains("unknown server \"oracle\": use ") && e.contains(" or "), "{e}");
    }
}
