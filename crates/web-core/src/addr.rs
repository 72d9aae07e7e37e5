//! The IANA special-purpose address registries as data, and the classification of an address.
