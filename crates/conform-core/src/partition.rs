//! `conform run --partition K/N`: one shard of the (profile, check) pairs, for CI
//! matrices, counted the way cargo-nextest's `count:K/N` partitions tests.
//!
//! The pairs are sorted as the report is: profiles in the order discovered, then
//! checks in catalog order, after `--only`/`--skip`. The i-th pair (from 0) goes to
//! shard (i mod N) + 1. The split happens before planning, so a shard makes only the
//! runs its own checks need.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use crate::checks::CheckId;

/// Shard `shard` of `total`, both counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    shard: usize,
    total: usize,
}

impl Partition {
    /// Shard `shard` of `total`; `None` unless 1 <= shard <= total.
    pub(crate) fn new(shard: usize, total: usize) -> Option<Partition> {
        (1..=total)
            .contains(&shard)
            .then_some(Partition { shard, total })
    }

    /// This shard's number, from 1.
    pub(crate) fn shard(self) -> usize {
        self.shard
    }

    /// How many shards there are.
    pub(crate) fn total(self) -> usize {
        self.total
    }

    /// Whether the pair at `index` of the sorted list belongs to this shard.
    pub(crate) fn holds(self, index: usize) -> bool {
        index % self.total + 1 == self.shard
    }

    /// This shard's checks for each of `profiles` profiles, all of which were
    /// selected `selected`. Every profile keeps its place, with an empty set when the
    /// shard holds none of its checks, so `data.results` lines up across shards.
    pub(crate) fn split(
        self,
        profiles: usize,
        selected: &BTreeSet<CheckId>,
    ) -> Vec<BTreeSet<CheckId>> {
        (0..profiles)
            .map(|p| {
                // BTreeSet iterates CheckId in declaration order: catalog order.
                selected
                    .iter()
                    .enumerate()
                    .filter(|(c, _)| self.holds(p * selected.len() + c))
                    .map(|(_, id)| *id)
                    .collect()
            })
            .collect()
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.shard, self.total)
    }
}

impl FromStr for Partition {
    type Err = String;

    /// `K/N`, or nextest's spelling `count:K/N`. The messages leave the value out:
    /// clap's "invalid value '...' for '--partition <K/N>'" already quotes it.
    fn from_str(text: &str) -> Result<Partition, String> {
        let spec = text.strip_prefix("count:").unwrap_or(text);
        if spec.contains(':') {
            // nextest also has `hash:K/N`; a hash split is not implemented here.
            return Err("only count:K/N (or plain K/N) is supported".to_string());
        }
        let (shard, total) = spec
            .split_once('/')
            .ok_or_else(|| "not K/N (shard K of N, such as 1/3)".to_string())?;
        let number = |s: &str| -> Result<usize, String> {
            // usize's parser takes a leading `+`; a shard number is plain digits.
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("{s:?} is not a whole number; give K/N such as 1/3"));
            }
            s.parse().map_err(|_| format!("{s} is too large"))
        };
        let (shard, total) = (number(shard)?, number(total)?);
        if total == 0 {
            return Err("N must be at least 1".to_string());
        }
        Partition::new(shard, total).ok_or_else(|| format!("K must be between 1 and N ({total})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Partition, String> {
        text.parse()
    }

    #[test]
    fn parses_both_spellings() {
        assert_eq!(parse("1/3"), Ok(Partition { shard: 1, total: 3 }));
        assert_eq!(parse("count:3/3"), Ok(Partition { shard: 3, total: 3 }));
        assert_eq!(parse("1/1"), Ok(Partition { shard: 1, total: 1 }));
        assert_eq!(parse("2/3").map(|p| p.to_string()), Ok("2/3".to_string()));
    }

    #[test]
    fn rejects_bad_values_with_a_reason() {
        let not_k_of_n = "not K/N (shard K of N, such as 1/3)";
        let not_a_number = |s: &str| format!("{s:?} is not a whole number; give K/N such as 1/3");
        let cases = [
            ("0/3", "K must be between 1 and N (3)".to_string()),
            ("4/3", "K must be between 1 and N (3)".to_string()),
            ("1/0", "N must be at least 1".to_string()),
            ("0/0", "N must be at least 1".to_string()),
            ("x", not_k_of_n.to_string()),
            ("count:", not_k_of_n.to_string()),
            ("count:1", not_k_of_n.to_string()),
            ("1/", not_a_number("")),
            ("/3", not_a_number("")),
            ("1/3/5", not_a_number("3/5")),
            ("+1/3", not_a_number("+1")),
            ("1/-3", not_a_number("-3")),
            (" 1/3", not_a_number(" 1")),
            (
                "hash:1/3",
                "only count:K/N (or plain K/N) is supported".to_string(),
            ),
            (
                "1/99999999999999999999999",
                "99999999999999999999999 is too large".to_string(),
            ),
        ];
        for (bad, reason) in cases {
            assert_eq!(parse(bad), Err(reason), "{bad}");
        }
    }

    #[test]
    fn the_ith_pair_goes_to_shard_i_mod_n_plus_one() {
        let shard = |k| Partition::new(k, 3).expect("valid shard");
        let held: Vec<usize> = (0..7).filter(|&i| shard(2).holds(i)).collect();
        assert_eq!(held, [1, 4]);
        let held: Vec<usize> = (0..7).filter(|&i| shard(1).holds(i)).collect();
        assert_eq!(held, [0, 3, 6]);
    }

    #[test]
    fn counting_runs_on_across_profiles() {
        use CheckId::*;
        let selected = BTreeSet::from([ManifestValid, JsonEnvelope, StreamSigint, HelpOffStdout]);
        // Sorted pairs: p0 json_envelope, help_off_stdout, manifest_valid, stream_sigint,
        // then p1 the same; shard 1 of 3 holds pairs 0, 3, 6.
        let split = Partition::new(1, 3).expect("valid").split(2, &selected);
        assert_eq!(
            split,
            [
                BTreeSet::from([JsonEnvelope, StreamSigint]),
                BTreeSet::from([ManifestValid]),
            ]
        );
    }

    #[test]
    fn shards_are_disjoint_and_complete() {
        let selected = CheckId::all();
        let profiles = 4;
        let total = 3;
        let shards: Vec<Vec<BTreeSet<CheckId>>> = (1..=total)
            .map(|k| {
                Partition::new(k, total)
                    .expect("valid")
                    .split(profiles, &selected)
            })
            .collect();
        for p in 0..profiles {
            let mut union = BTreeSet::new();
            for shard in &shards {
                for id in &shard[p] {
                    assert!(union.insert(*id), "{id:?} of profile {p} in two shards");
                }
            }
            assert_eq!(union, selected, "profile {p}");
        }
        let sizes: Vec<usize> = shards
            .iter()
            .map(|s| s.iter().map(BTreeSet::len).sum())
            .collect();
        // Derived from the catalog's size, so adding a check does not touch this.
        let pairs = profiles * selected.len();
        let balanced: Vec<usize> = (0..total)
            .map(|k| pairs / total + usize::from(k < pairs % total))
            .collect();
        assert_eq!(sizes, balanced, "{pairs} pairs, balanced by count");
    }

    #[test]
    fn a_shard_beyond_the_pairs_gets_every_profile_empty() {
        let selected = BTreeSet::from([CheckId::JsonEnvelope]);
        let split = Partition::new(3, 3).expect("valid").split(2, &selected);
        assert_eq!(split, [BTreeSet::new(), BTreeSet::new()]);
    }
}
