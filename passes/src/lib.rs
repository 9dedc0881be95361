//! CopierGen pass plugin. PLACEHOLDER: filled by the CopierGen work (issue 3).
