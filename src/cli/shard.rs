//! `--shard I/N`: which slice of a sweep's seeds one process runs.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// `--shard I/N`: the I-th (from 0) of N contiguous slices of the seed range. Written
/// `I/N` in JSON too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// The whole range: an unsharded sweep.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// This shard's slice of `seeds`; the slices of shards 0..N concatenate to `seeds`.
    pub fn slice(self, seeds: Range<u64>) -> Range<u64> {
        let len = u128::from(seeds.end - seeds.start);
        let at = |i: u64| {
            seeds.start + u64::try_from(len * u128::from(i) / u128::from(self.count)).unwrap_or(0)
        };
        at(self.index)..at(self.index + 1)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (index, count) = s
            .split_once('/')
            .ok_or_else(|| format!("shard `{s}` is not of the form I/N"))?;
        let index: u64 = index
            .parse()
            .map_err(|_| format!("shard `{s}`: `{index}` is not a whole number"))?;
        let count: u64 = count
            .parse()
            .map_err(|_| format!("shard `{s}`: `{count}` is not a whole number"))?;
        if count == 0 || index >= count {
            return Err(format!(
                "shard `{s}`: I must be below N and N above 0 (I counts from 0)"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_concatenate_to_the_whole_range() {
        for count in 1..=7 {
            let mut seeds = Vec::new();
            for index in 0..count {
                seeds.extend(Shard { index, count }.slice(10..33));
            }
            assert_eq!(seeds, (10..33).collect::<Vec<_>>(), "{count} shards");
        }
    }

    #[test]
    fn bad_shards_are_named() {
        assert!(
            "2/2"
                .parse::<Shard>()
                .unwrap_err()
                .contains("I must be below N")
        );
        assert!("x/2".parse::<Shard>().unwrap_err().contains("`x`"));
    }
}
