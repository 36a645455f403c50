//! The seed tree. One root `u64` identifies a run; every random source (turmoil's network,
//! the workload, the fault plan, per-host id generators, work durations) draws from a
//! sub-seed derived from the root *by name*. A sub-seed depends only on its parent and its
//! own name, so adding a new source never shifts the draws of existing ones.

use std::fmt;
use std::str::FromStr;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// A node of the seed tree: a `u64` from which named children and RNGs are derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seed(u64);

impl Seed {
    /// Wraps a raw seed value (the root seed of a run, or a value printed earlier).
    pub const fn new(value: u64) -> Self {
        Self(value)
    }

    /// The raw value.
    pub const fn value(self) -> u64 {
        self.0
    }

    /// The child seed called `name`: the first 8 bytes (little endian) of
    /// `SHA-256("meshsim-seed/v1" ‖ parent (LE) ‖ name)`. Independent of any other child.
    pub fn derive(self, name: &str) -> Seed {
        let mut hasher = Sha256::new();
        hasher.update(b"meshsim-seed/v1");
        hasher.update(self.0.to_le_bytes());
        hasher.update(name.as_bytes());
        let digest = hasher.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        Seed(u64::from_le_bytes(first))
    }

    /// A ChaCha8 RNG seeded from this node.
    pub fn rng(self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.0)
    }

    /// Shorthand for `self.derive(name).rng()`.
    pub fn rng_for(self, name: &str) -> ChaCha8Rng {
        self.derive(name).rng()
    }
}

impl fmt::Display for Seed {
    /// `0x00000000000004d2 (1234)`: hex for copy-paste into tools, decimal for humans.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#018x} ({})", self.0, self.0)
    }
}

/// A seed string that is neither decimal nor `0x`-prefixed hex.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid seed {input:?}: expected a decimal u64 or 0x-prefixed hex")]
pub struct ParseSeedError {
    input: String,
}

impl FromStr for Seed {
    type Err = ParseSeedError;

    /// Accepts `1234`, `0x4d2` and the full `Display` form `0x00000000000004d2 (1234)`
    /// (when both parts are present they must agree).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseSeedError {
            input: s.to_string(),
        };
        let trimmed = s.trim();
        let (head, tail) = match trimmed.split_once(' ') {
            Some((head, tail)) => (head, Some(tail.trim())),
            None => (trimmed, None),
        };
        let value = parse_u64(head).ok_or_else(err)?;
        if let Some(tail) = tail {
            let inner = tail
                .strip_prefix('(')
                .and_then(|t| t.strip_suffix(')'))
                .ok_or_else(err)?;
            if parse_u64(inner) != Some(value) {
                return Err(err());
            }
        }
        Ok(Seed(value))
    }
}

fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn children_do_not_depend_on_siblings() {
        let root = Seed::new(42);
        let before = root.derive("workload");
        let _new_source = root.derive("a-new-random-source");
        assert_eq!(root.derive("workload"), before);
        assert_ne!(root.derive("workload"), root.derive("faults"));
        assert_ne!(Seed::new(43).derive("workload"), before);
    }

    #[test]
    fn derivation_is_stable_across_releases() {
        // Pinned (checked with Python hashlib): changing the derivation would silently change
        // what every recorded seed means.
        assert_eq!(
            Seed::new(0).derive("turmoil").value(),
            0xacd4_33ea_824a_f02c
        );
    }

    #[test]
    fn nested_paths_differ_from_flat_names() {
        let root = Seed::new(7);
        assert_ne!(
            root.derive(crate::seed_names::HOSTS).derive("a"),
            root.derive("hosts/a")
        );
    }

    #[test]
    fn rng_streams_repeat() {
        let (mut a, mut b) = (Seed::new(9).rng(), Seed::new(9).rng());
        let xs: [u64; 4] = std::array::from_fn(|_| a.random());
        let ys: [u64; 4] = std::array::from_fn(|_| b.random());
        assert_eq!(xs, ys);
    }

    #[test]
    fn displays_hex_and_decimal_and_parses_back() {
        let seed = Seed::new(1234);
        assert_eq!(seed.to_string(), "0x00000000000004d2 (1234)");
        assert_eq!(seed.to_string().parse::<Seed>(), Ok(seed));
        assert_eq!("0x4d2".parse::<Seed>(), Ok(seed));
        assert_eq!("1234".parse::<Seed>(), Ok(seed));
    }

    #[test]
    fn rejects_bad_seeds() {
        for bad in [
            "",
            "abc",
            "0xzz",
            "-1",
            "0x4d2 (1235)",
            "18446744073709551616",
        ] {
            assert!(bad.parse::<Seed>().is_err(), "{bad:?} parsed");
        }
    }
}
