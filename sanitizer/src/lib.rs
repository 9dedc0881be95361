//! CopierSanitizer runtime. PLACEHOLDER: filled by the sanitizer work (issue 4).
