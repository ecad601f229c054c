//! `fairbench explain LABEL`: what each token of a BMK label means, the
//! command and options it stands for, and its canonical spelling.

use crate::error::{Error, Result};

pub fn explain(label: &str) -> Result<()> {
    let d = crate::workload::family::parse_label(label).map_err(|e| Error::Usage(e.to_string()))?;
    println!("{label}");
    for (tok, what) in &d.explanation {
        println!("  {tok:<20} {what}");
    }
    println!("command: {}", d.command);
    println!("workload: {}", d.workload);
    let opts: Vec<String> = d.options.iter().map(|(k, v)| format!("--{k}={v}")).collect();
    println!("options: {}", opts.join(" "));
    let get = |n: &str| if n == "command" { Some(d.command.clone()) } else { d.options.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()) };
    println!("canonical: {}", crate::workload::family::canonical_label(&d.workload, &get));
    Ok(())
}
