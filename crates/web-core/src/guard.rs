//! The address policy and its one ordered decision function.
