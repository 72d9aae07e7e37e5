//! robots.txt per RFC 9309: parsing and matching, sans I/O.
