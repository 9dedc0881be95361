; Calls to memcpy with a non-standard prototype (a K&R-style declaration
; returning int whose result is used) stay synchronous.
define i32 @knr(ptr %d, ptr %s, i64 %n) {
  %r = call i32 (ptr, ptr, i64, ...) @memcpy(ptr %d, ptr %s, i64 %n)
  ret i32 %r
}

declare i32 @memcpy(ptr, ptr, i64, ...)
