//! Strict JSON configuration of the Web pack, turned into typed options for every module.
