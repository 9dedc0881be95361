//! Helpers shared by Copier's cross-component tests.
