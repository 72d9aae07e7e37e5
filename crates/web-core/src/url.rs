//! URL shape checks that produce a CheckedUrl, the only URL type the I/O layers accept.
