//! Copier's service side. PLACEHOLDER: filled by the runtime work (issue 2).
