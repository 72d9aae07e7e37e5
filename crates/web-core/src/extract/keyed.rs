//! A page's tables of strings: those read once (class values, tokens, links), each with
//! what it was found to say, kept end to end in one buffer, so that the extractor's walks,
//! which meet the same values on many elements, read each value once without an allocation
//! for each; and those met for the first time (a page's links), told apart where they are.

use std::hash::BuildHasher as _;

/// A table from strings to what they say: the strings kept end to end in one buffer, so
/// that a value read for the first time costs no allocation of its own.
pub(crate) struct Keyed<V> {
    /// The strings, end to end.
    text: String,
    /// Each string's place in `text`, with its hash and its value.
    table: hashbrown::HashTable<Entry<V>>,
    /// The strings' hasher.
    state: foldhash::fast::RandomState,
}

/// One string of a [`Keyed`] table. Its hash is kept, so that the table grows without
/// hashing its strings again.
#[derive(Clone, Copy)]
struct Entry<V> {
    /// Where the string begins in the table's text.
    at: usize,
    /// Its length in bytes.
    len: usize,
    /// Its hash.
    hash: u64,
    /// What it says.
    value: V,
}

/// The strings a [`Keyed`] table makes room for when it notes its first: a page's memo reads
/// some hundreds of class values, tokens and links, and a table grown from nothing would
/// move its entries five times before this many. A table that notes nothing (one handed on
/// and replaced) allocates nothing.
const KEYED_START: usize = 128;

impl<V> Entry<V> {
    /// Whether this entry is `key`, hashed to `hash`, in the table's `text`.
    fn is(&self, text: &str, hash: u64, key: &str) -> bool {
        self.hash == hash && text.get(self.at..self.at + self.len) == Some(key)
    }
}

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Self {
            text: String::new(),
            table: hashbrown::HashTable::new(),
            state: foldhash::fast::RandomState::default(),
        }
    }
}

impl<V: Copy> Keyed<V> {
    /// The entry of `key`, hashed to `hash`, when it was noted.
    fn entry(&self, hash: u64, key: &str) -> Option<&Entry<V>> {
        self.table.find(hash, |e| e.is(&self.text, hash, key))
    }

    /// What `key` says, when it was noted.
    pub(crate) fn get(&self, key: &str) -> Option<V> {
        self.entry(self.state.hash_one(key), key).map(|e| e.value)
    }

    /// What `key` says: noted before, or `f`'s answer, noted.
    pub(crate) fn get_or_insert_with(&mut self, key: &str, f: impl FnOnce() -> V) -> V {
        let hash = self.state.hash_one(key);
        if let Some(e) = self.entry(hash, key) {
            return e.value;
        }
        let value = f();
        self.add(hash, key, value);
        value
    }

    /// Notes what `key` says, in place of what it said before.
    pub(crate) fn insert(&mut self, key: &str, value: V) {
        let hash = self.state.hash_one(key);
        let text = &self.text;
        match self.table.find_mut(hash, |e| e.is(text, hash, key)) {
            Some(e) => e.value = value,
            None => self.add(hash, key, value),
        }
    }

    /// Notes `key`, hashed to `hash`.
    fn add(&mut self, hash: u64, key: &str, value: V) {
        let at = self.text.len();
        self.text.push_str(key);
        if self.table.capacity() == 0 {
            self.table.reserve(KEYED_START, |e| e.hash);
        }
        let entry = Entry {
            at,
            len: key.len(),
            hash,
            value,
        };
        self.table.insert_unique(hash, entry, |e| e.hash);
    }

    /// How many strings are noted.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }
}

/// Strings met in turn, each told from those met before by its hash and then by comparing
/// it with the string an earlier one's index names: which are met for the first time,
/// without a copy of any of them (a page's links are read where they are).
#[derive(Default)]
pub(crate) struct Firsts {
    /// The strings met, as their hash and their index.
    table: hashbrown::HashTable<(u64, usize)>,
    /// The strings' hasher.
    state: foldhash::fast::RandomState,
}

impl Firsts {
    /// Whether `key`, the string of index `at`, is met for the first time (then noted);
    /// `same(i)` says whether the string of an index met before is `key`.
    pub(crate) fn first(&mut self, key: &str, at: usize, same: impl Fn(usize) -> bool) -> bool {
        let hash = self.state.hash_one(key);
        if self
            .table
            .find(hash, |&(h, i)| h == hash && same(i))
            .is_some()
        {
            return false;
        }
        self.table.insert_unique(hash, (hash, at), |&(h, _)| h);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The table answers as a map of its own strings would: strings that share
        /// their bytes end to end in its buffer (`ab` then `c`, `a` then `bc`, the empty
        /// string, a string and its prefix) stay apart, however many are noted, and a string
        /// noted again says what it was last told.
        #[test]
        fn keyed_strings_answer_as_a_map_of_them_would(
            keys in proptest::collection::vec(
                proptest::sample::select(vec!["", "a", "b", "c", "ab", "bc", "abc", "é", "aé"]),
                1..6,
            ),
            steps in proptest::collection::vec((0usize..64, proptest::bool::ANY), 0..300),
        ) {
            // Strings made of a few pieces, so that many are prefixes and joins of others.
            let key = |i: usize| -> String {
                (0..=i % keys.len()).map(|k| keys[(i / keys.len() + k) % keys.len()]).collect()
            };
            let mut keyed: Keyed<usize> = Keyed::default();
            let mut map: std::collections::HashMap<String, usize> = Default::default();
            for (n, (i, insert)) in steps.into_iter().enumerate() {
                let k = key(i);
                if insert && n % 3 == 0 {
                    keyed.insert(&k, n);
                    map.insert(k, n);
                } else if insert {
                    let want = *map.entry(k.clone()).or_insert(n);
                    proptest::prop_assert_eq!(keyed.get_or_insert_with(&k, || n), want);
                } else {
                    proptest::prop_assert_eq!(keyed.get(&k), map.get(&k).copied());
                }
            }
            proptest::prop_assert_eq!(keyed.len(), map.len());
        }

        /// A string is met for the first time exactly when a set of the strings met before
        /// lacks it, however the strings share their bytes.
        #[test]
        fn a_string_is_first_where_a_set_of_those_before_lacks_it(
            picks in proptest::collection::vec(
                proptest::sample::select(vec!["", "a", "b", "ab", "ba", "abc", "é", "a "]),
                0..200,
            ),
        ) {
            let mut firsts = Firsts::default();
            let mut set = std::collections::HashSet::new();
            for (at, key) in picks.iter().enumerate() {
                let first = firsts.first(key, at, |i| picks[i] == *key);
                proptest::prop_assert_eq!(first, set.insert(*key));
            }
        }
    }
}
