//! What the rest of fairbench asks of a workload family, object-safe so the
//! registry (the family list in `workload/mod.rs`) can hold every family in
//! one slice. [`Workload`](super::Workload) is generic over its client and
//! futures; a family's [`Family::bench`] builds its workload and returns it
//! as a [`Drivable`] for the runner's driver, so nothing outside the
//! family's folder names its type and the family never calls the driver.

use super::FAMILIES;
use crate::db::ConnConfig;
use crate::error::{Error, Result};
use crate::label::{Decoded, Grammar, LabelError, Registry, Scenario};
use crate::model::record::LevelRec;
use crate::workload::plan::Plan;
use crate::workload::Workload;
use clap::{ArgMatches, Command, FromArgMatches};
use std::sync::Arc;

pub trait Family: Sync + std::fmt::Debug {
    /// Its folder under `src/workload/`, which holds everything it owns.
    fn name(&self) -> &'static str;

    /// The workload names it serves, as the command line takes them.
    fn workloads(&self) -> &'static [&'static str];

    /// Whether it serves `workload`: one of its names, or (for a family
    /// whose workloads are files, e.g. scripts) a name it recognises
    /// without listing it.
    fn serves(&self, workload: &str) -> bool {
        self.workloads().contains(&workload)
    }

    /// Its names as the help of the workload argument shows them.
    fn help(&self) -> &'static str;

    /// A BMK-kit label standing for one of its workloads, for errors.
    fn label_example(&self) -> &'static str;

    /// Adds its options (its clap `Args` struct, under its own help
    /// heading) to the run / prepare / cleanup / prewarm / check commands.
    fn augment_args(&self, cmd: Command) -> Command;

    /// Whether a workload never writes (the audit's read-only rules).
    fn read_only(&self, _workload: &str) -> bool {
        false
    }

    /// The options (as runs record them) that define the work itself: two
    /// runs that differ in one did different work, so a comparison of them
    /// measures the options, not the servers (the audit's
    /// `workload-options-mismatch`). Sizes and distributions every family
    /// shares have rules of their own.
    fn defining_options(&self, _workload: &str) -> &'static [&'static str] {
        &[]
    }

    /// Other tools that run this family's work, each with what it sends and the options that
    /// make a run here comparable with its numbers: `fairbench explain go-tpc`.
    fn peers(&self) -> &'static [Peer] {
        &[]
    }

    /// The `--rand-type` when none is given: sysbench's default, special,
    /// unless the workload's reference kit draws its keys otherwise.
    fn default_rand_type(&self) -> &'static str {
        "special"
    }

    /// Whether `check` has consistency conditions to verify.
    fn has_check(&self) -> bool {
        false
    }

    /// Ready lists of runs of its workloads, as a published series runs
    /// them (`fairbench sweep --preset NAME`), sized for a server given
    /// `ram` bytes.
    fn presets(&self, _ram: u64) -> Vec<Preset> {
        Vec::new()
    }

    /// Charts of a whole run over time the report draws from the stored
    /// per-interval counts of the workload's kinds (CH-benCHmark's tpmC and
    /// analytic queries across its phases); empty: none.
    fn timeline(&self, _workload: &str) -> Vec<Timeline> {
        Vec::new()
    }

    /// Figures a report shows for one stored level besides the common ones
    /// (name, value), computed from what the record holds: the level's
    /// summary with its per-kind counts and latencies.
    fn report_figures(&self, _level: &LevelRec) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Describe the run of `plan.command` (prepare, run, cleanup, prewarm,
    /// check): build the workload from the parsed options and adjust the
    /// connection settings and run control where the family needs to. None:
    /// the family carried out the command itself (a script's own commands).
    fn bench(&self, plan: &mut Plan, cfg: ConnConfig) -> Result<Option<BenchRun>>;

    // Optional capabilities: a family that has one returns itself.
    /// Its labels, when its workloads have labels beyond their names.
    fn labels(&self) -> Option<&dyn Labels> {
        None
    }

    /// How its workloads' own command lines are read, when they have one.
    fn command_line(&self) -> Option<&dyn CommandLine> {
        None
    }
}

/// A family whose workloads have labels of their own (BMK-kit's, a tool's):
/// the words, the grammar and the canonical form. Asked through
/// [`Family::labels`]; a family without it is named by its workloads' names.
pub trait Labels: Sync {
    /// The BMK scenario words that stand for its workloads in a label
    /// (the rest of the label grammar is shared).
    fn label_scenarios(&self) -> &'static [Scenario] {
        &[]
    }

    /// Its part of the shared label grammar (its tokens after the
    /// scenario), when its labels follow the shared shape.
    fn label_grammar(&self) -> Option<&'static dyn Grammar> {
        None
    }

    /// The words its labels start with, for messages: its scenario words
    /// unless it decodes its labels whole.
    fn label_words(&self) -> Vec<&'static str> {
        self.label_scenarios().iter().map(|s| s.token).collect()
    }

    /// Decodes a label when it is one of the family's own grammar (a
    /// scenario whose tokens the shared grammar does not know); None leaves
    /// the label to the shared grammar. Asked before the shared grammar, so
    /// it must answer None for any label that does not start with one of
    /// its own scenario words.
    fn decode_label(&self, _label: &str) -> Option<std::result::Result<Decoded, LabelError>> {
        None
    }

    /// The canonical label of one of its workloads, when it decodes its own
    /// labels (`get(name)` gives an option's effective value, `get("command")`
    /// the command); None: the label is the workload's name.
    fn canonical_label(&self, _workload: &str, _get: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        None
    }
}

/// A family whose workloads are reached by a command line of their own: a
/// script's declared options, the line of the tool they come from, the
/// options that imply the workload. Asked through [`Family::command_line`].
pub trait CommandLine: Sync {
    /// Whether `workload` declares its own options and commands (a script
    /// does): the command line then hands every option that is not a
    /// run-control, target or random-number option to the family as it
    /// was written, with the word after a bare option that may be its value
    /// ([`crate::workload::plan::Plan::script_options`]), with the
    /// command ([`crate::workload::plan::Plan::script_command`]), which may be
    /// one the workload defines.
    fn own_command_line(&self, _workload: &str) -> bool {
        false
    }

    /// Rewrites a command line written as the tool the workload comes from
    /// takes it (YCSB's `load ycsb -P FILE -threads 4 -target 100`) into
    /// fairbench's; None when `argv` is not such a line for this family.
    /// Asked of every family before anything else reads the command line;
    /// Err is one line saying what is wrong.
    fn tool_command_line(&self, _argv: &[String]) -> Option<std::result::Result<Vec<String>, String>> {
        None
    }

    /// The workload this family runs when the command line names none but
    /// gives options only this family reads (a script file, say); None
    /// leaves the run to the default workload.
    fn implied_workload(&self, _args: &FamilyArgs) -> Option<&'static str> {
        None
    }
}

/// A list of runs a series publishes: `prepare` once per server, then each
/// run's command line (what follows `fairbench run`), in order.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Preset {
    pub name: String,
    pub about: String,
    /// `prepare`'s workload and options; empty when each run loads its own data.
    pub prepare: Vec<String>,
    pub runs: Vec<PresetRun>,
    /// How its sizes were scaled to the machine, in words.
    pub notes: Vec<String>,
}

/// One run of a preset: the name its series is reported under, and the
/// workload with its options.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PresetRun {
    pub name: String,
    pub args: Vec<String>,
}

impl PresetRun {
    pub fn new(name: &str, args: &str) -> PresetRun {
        PresetRun { name: name.into(), args: args.split_whitespace().map(String::from).collect() }
    }
}

/// The preset `name` of any family, sized for `ram` bytes; Err names the ones there are.
pub fn preset(name: &str, ram: u64) -> Result<Preset> {
    let all: Vec<Preset> = FAMILIES.iter().flat_map(|f| f.presets(ram)).collect();
    all.into_iter().find(|p| p.name == name).ok_or_else(|| Error::Usage(format!("no preset '{name}': the presets are {}", preset_names())))
}

/// The presets' names, comma-separated.
pub fn preset_names() -> String {
    FAMILIES.iter().flat_map(|f| f.presets(1 << 30)).map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// What the driver needs from a family for one command: the workload and
/// the connection settings, which the family may have adjusted.
pub struct BenchRun {
    pub workload: Box<dyn Drivable>,
    pub cfg: Arc<ConnConfig>,
}

impl BenchRun {
    pub fn new<W: Workload>(w: W, cfg: impl Into<Arc<ConnConfig>>) -> BenchRun {
        BenchRun { workload: Box::new(Arc::new(w)), cfg: cfg.into() }
    }
}

/// A workload ready to be driven, whatever its type. Every `Arc` of a
/// [`Workload`] is one: the runner implements it beside its driver
/// (src/runner/drive.rs), so a family hands its workload over without
/// naming the driver, and the run flows down from the command.
pub trait Drivable {
    fn drive(self: Box<Self>, plan: &Plan, cfg: Arc<ConnConfig>) -> Result<()>;

    /// `fairbench check writes FILE`: the writes a `--verify-writes` run
    /// of this workload recorded in `log`, read back from the target: the
    /// verdict, as the JSON "writes" object.
    fn check_writes(self: Box<Self>, log: &std::path::Path, cfg: Arc<ConnConfig>) -> Result<serde_json::Value>;

    /// The canonical label and the options a run of this workload records
    /// (`fairbench explain`).
    fn settings(&self, cfg: &ConnConfig) -> (String, Vec<(String, String)>);
}

/// The options of every registered family as clap parsed them. Each family
/// reads its own `Args` struct back from these matches ([`FamilyArgs::get`]),
/// so the command line's argument structs never name a family.
#[derive(Clone, Debug)]
pub struct FamilyArgs(ArgMatches);

impl FamilyArgs {
    /// A family's options struct, read from the parsed command line.
    pub fn get<A: FromArgMatches>(&self) -> Result<A> {
        A::from_arg_matches(&self.0).map_err(|e| Error::Usage(e.to_string().trim_end().to_string()))
    }

    /// The value of an option another family declares (`id` as clap names
    /// it, e.g. `skip_trx`), default included; None when no registered
    /// family declares it with that type. Options a concept shares keep one
    /// name on the command line, whichever family declared it first.
    pub fn value<T: Clone + Send + Sync + 'static>(&self, id: &str) -> Option<T> {
        self.0.try_get_one::<T>(id).ok().flatten().cloned()
    }

    /// The workload options the command line (or a label) gave, as
    /// (long name, value) in the order clap holds them, one pair per value:
    /// `--name=value` for each rebuilds the same workload.
    pub fn given_options(&self) -> Vec<(String, String)> {
        // The matches are the whole command's: only the families' own
        // options (never the target's, whose URL may hold a password).
        let own = <Self as clap::Args>::augment_args(Command::new("options"));
        let mut out = Vec::new();
        for a in own.get_arguments() {
            let id = a.get_id().as_str();
            let Some(long) = a.get_long() else { continue };
            if self.0.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
                continue;
            }
            let Ok(Some(raw)) = self.0.try_get_raw(id) else { continue };
            for v in raw {
                out.push((long.to_string(), v.to_string_lossy().into_owned()));
            }
        }
        out
    }

    /// Like [`Self::value`], but only when the command line (or a label)
    /// set it: a family whose default differs from the declaring family's
    /// keeps its own.
    pub fn given<T: Clone + Send + Sync + 'static>(&self, id: &str) -> Option<T> {
        match self.0.value_source(id) {
            Some(clap::parser::ValueSource::CommandLine) => self.value(id),
            _ => None,
        }
    }
}

impl FromArgMatches for FamilyArgs {
    fn from_arg_matches(m: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        Ok(FamilyArgs(m.clone()))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        self.0 = m.clone();
        Ok(())
    }
}

impl clap::Args for FamilyArgs {
    fn augment_args(cmd: Command) -> Command {
        let cmd = <super::common::CommonArgs as clap::Args>::augment_args(cmd);
        FAMILIES.iter().fold(cmd, |c, f| f.augment_args(c))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The workload a run is: the one the command line names, else one a
/// family implies from the options given, else the default. A named
/// workload of another family than the one implying it is an error: the
/// options would be silently ignored.
pub fn chosen_workload(named: &str, given: bool, args: &FamilyArgs) -> Result<String> {
    let Some((family, implied)) = FAMILIES.iter().find_map(|f| f.command_line()?.implied_workload(args).map(|w| (*f, w))) else { return Ok(named.to_string()) };
    if !given {
        return Ok(implied.to_string());
    }
    match find(named) {
        Some(f) if f.name() != family.name() => Err(Error::Usage(format!("the options given run {implied} ({}), not '{named}': drop '{named}' or those options", family.help()))),
        _ => Ok(named.to_string()),
    }
}

/// Help of the workload argument: every family's names.
pub fn workload_help() -> String {
    format!("Workload ({}) or a BMK-kit label", FAMILIES.iter().map(|f| f.help()).collect::<Vec<_>>().join(", "))
}

/// The family serving a workload name.
pub fn find(workload: &str) -> Option<&'static dyn Family> {
    FAMILIES.iter().copied().find(|f| f.serves(workload))
}

/// Every workload name, family by family.
pub fn workload_names() -> Vec<&'static str> {
    FAMILIES.iter().flat_map(|f| f.workloads().iter().copied()).collect()
}

/// Whether a stored run's workload is read-only (unknown names are not).
pub fn is_read_only(workload: &str) -> bool {
    find(workload).is_some_and(|f| f.read_only(workload))
}

/// The options that define a stored run's workload's work (none for unknown names).
pub fn defining_options(workload: &str) -> &'static [&'static str] {
    find(workload).map_or(&[], |f| f.defining_options(workload))
}

/// Another tool's way of running a family's work (`Family::peers`).
#[derive(Debug)]
pub struct Peer {
    pub tool: &'static str,
    /// What that tool sends.
    pub sends: &'static str,
    /// The options of a run here that sends the same.
    pub options: &'static str,
}

/// The tool named `name` (case and `-`/`_` aside), and the workload it runs.
pub fn peer(name: &str) -> Option<(&'static str, &'static Peer)> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    FAMILIES.iter().find_map(|f| f.peers().iter().find(|p| norm(p.tool) == norm(name)).map(|p| (f.workloads()[0], p)))
}

/// The names `check` accepts.
pub fn checked_workloads() -> Vec<&'static str> {
    FAMILIES.iter().filter(|f| f.has_check()).flat_map(|f| f.workloads().iter().copied()).collect()
}

/// The families whose workloads have labels of their own.
fn labelled() -> impl Iterator<Item = &'static dyn Labels> {
    FAMILIES.iter().filter_map(|f| f.labels())
}

/// Whether `workload` declares its own options and commands (see
/// [`CommandLine::own_command_line`]).
pub fn own_command_line(workload: &str) -> bool {
    find(workload).and_then(|f| f.command_line()).is_some_and(|c| c.own_command_line(workload))
}

/// Every family's BMK scenario words.
pub fn label_scenarios() -> impl Iterator<Item = &'static Scenario> {
    labelled().flat_map(|l| l.label_scenarios().iter())
}

/// Label examples of every family, for the unknown-workload error.
pub fn label_examples() -> Vec<&'static str> {
    FAMILIES.iter().map(|f| f.label_example()).collect()
}

/// The registered families as the label grammar sees them.
struct Families;

impl Registry for Families {
    fn scenarios(&self) -> Vec<&'static Scenario> {
        label_scenarios().collect()
    }

    fn words(&self) -> Vec<&'static str> {
        labelled().flat_map(|l| l.label_words()).collect()
    }

    fn workloads(&self) -> Vec<&'static str> {
        workload_names()
    }

    fn grammar(&self, workload: &str) -> Option<&'static dyn Grammar> {
        find(workload).and_then(|f| f.labels()?.label_grammar())
    }

    fn grammars(&self) -> Vec<&'static dyn Grammar> {
        labelled().filter_map(|l| l.label_grammar()).collect()
    }

    fn default_workload(&self) -> &'static str {
        super::DEFAULT_WORKLOAD
    }

    fn example(&self) -> String {
        label_examples().join(" or ")
    }

    fn decode_whole(&self, label: &str) -> Option<std::result::Result<Decoded, LabelError>> {
        labelled().find_map(|l| l.decode_label(label))
    }
}

/// Decodes a label (canonical form or BMK script name) with every
/// registered family's tokens (see `crate::label`).
pub fn parse_label(label: &str) -> std::result::Result<Decoded, LabelError> {
    crate::label::parse(label, &Families)
}

/// The command line in fairbench's form: the first family that reads it
/// as its tool's command line rewrites it ([`CommandLine::tool_command_line`]).
pub fn tool_command_line(argv: Vec<String>) -> std::result::Result<Vec<String>, String> {
    for f in FAMILIES.iter().filter_map(|f| f.command_line()) {
        if let Some(r) = f.tool_command_line(&argv) {
            return r;
        }
    }
    Ok(argv)
}

/// Whether a workload argument is a label rather than a workload name.
pub fn looks_like_label(s: &str) -> bool {
    crate::label::looks_like_label(s, &Families)
}

/// The canonical label of a workload's effective settings (`get(name)`: an
/// option's value, defaults included, or None where it does not apply;
/// `get("command")`: `prepare` builds a Prepare label).
pub fn canonical_label(workload: &str, get: &dyn Fn(&str) -> Option<String>) -> String {
    find(workload).and_then(|f| f.labels()?.canonical_label(workload, get)).unwrap_or_else(|| workload.to_string())
}

/// One chart of a run over time: the events of `kinds` per interval,
/// times `per_second` (60: per minute), in `unit`.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub title: &'static str,
    pub unit: &'static str,
    pub kinds: Vec<&'static str>,
    pub per_second: f64,
}
