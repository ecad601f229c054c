//! A server host's figures from the Prometheus node exporter its owner
//! already runs (`--server-metrics http://dbhost:9100/metrics`): CPU time
//! by mode, context switches, swapping and disk counters, host-wide as the
//! exporter counts them. No agent of fairbench's runs on the server's host.

use super::proc::NODE;
use crate::scrape::{self, Sample};
use std::collections::BTreeMap;
use std::time::Duration;

/// How long one read of the exporter may take: it runs between samples.
const LIMIT: Duration = Duration::from_secs(2);

/// The exporter's counters as `node:` entries (the modes summed over CPUs),
/// and its whole-disk counters as /proc/diskstats' four (reads, sectors
/// read, writes, sectors written).
pub async fn read(url: &str) -> Result<(BTreeMap<String, f64>, BTreeMap<String, [u64; 4]>), String> {
    let samples = scrape::parse(&scrape::fetch(url, LIMIT).await?);
    let counters = counters(&samples);
    if !counters.contains_key(&format!("{NODE}idle_s")) {
        return Err(format!("{url} has no node_cpu_seconds_total: is it a node exporter?"));
    }
    Ok((counters, disks(&samples)))
}

fn counters(samples: &[Sample]) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for mode in ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"] {
        if let Some(v) = scrape::sum(samples, "node_cpu_seconds_total", &[("mode", mode)]) {
            m.insert(format!("{NODE}{mode}_s"), v);
        }
    }
    for (key, name) in [("ctxt", "node_context_switches_total"), ("swap_in", "node_vmstat_pswpin"), ("swap_out", "node_vmstat_pswpout")] {
        if let Some(v) = scrape::sum(samples, name, &[]) {
            m.insert(format!("{NODE}{key}"), v);
        }
    }
    m
}

/// Whole disks only (a partition's IO is its disk's too), as /proc/diskstats names them.
fn disks(samples: &[Sample]) -> BTreeMap<String, [u64; 4]> {
    let mut out: BTreeMap<String, [u64; 4]> = BTreeMap::new();
    let fields = [("node_disk_reads_completed_total", 0, 1.0), ("node_disk_read_bytes_total", 1, 512.0), ("node_disk_writes_completed_total", 2, 1.0), ("node_disk_written_bytes_total", 3, 512.0)];
    for s in samples {
        let Some(&(_, i, unit)) = fields.iter().find(|(n, _, _)| *n == s.name) else { continue };
        let Some(dev) = s.label("device") else { continue };
        if is_partition(dev) || dev.starts_with("loop") || dev.starts_with("ram") || dev.starts_with("dm-") {
            continue;
        }
        out.entry(dev.to_string()).or_default()[i] = (s.value / unit) as u64;
    }
    out
}

/// sda1, vda2, nvme0n1p1, mmcblk0p1: a partition of a disk the list also holds.
fn is_partition(dev: &str) -> bool {
    let digits = dev.trim_end_matches(|c: char| c.is_ascii_digit());
    if digits.len() == dev.len() {
        return false;
    }
    if dev.starts_with("nvme") || dev.starts_with("mmcblk") {
        return digits.ends_with('p');
    }
    dev.starts_with("sd") || dev.starts_with("vd") || dev.starts_with("xvd") || dev.starts_with("hd")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exporters_text_becomes_host_counters_and_whole_disks() {
        let text = "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 100\nnode_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 50\n\
            node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 7\nnode_context_switches_total 12345\nnode_vmstat_pswpin 3\n\
            node_disk_reads_completed_total{device=\"vda\"} 10\nnode_disk_read_bytes_total{device=\"vda\"} 5120\n\
            node_disk_reads_completed_total{device=\"vda1\"} 9\nnode_disk_reads_completed_total{device=\"nvme0n1\"} 4\nnode_disk_reads_completed_total{device=\"nvme0n1p2\"} 4\n";
        let s = scrape::parse(text);
        let c = counters(&s);
        assert_eq!(c["node:idle_s"], 150.0);
        assert_eq!(c["node:user_s"], 7.0);
        assert_eq!(c["node:ctxt"], 12345.0);
        assert_eq!(c["node:swap_in"], 3.0);
        let d = disks(&s);
        assert_eq!(d.keys().collect::<Vec<_>>(), vec!["nvme0n1", "vda"]);
        assert_eq!(d["vda"], [10, 10, 0, 0]);
    }
}
