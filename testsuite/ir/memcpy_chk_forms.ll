; The _FORTIFY_SOURCE forms of a copy:
; - variable length, known object size: amemcpy with the check kept inline
;   (__memcpy_chk runs, and aborts, only when len > dstlen);
; - constant length that fits: amemcpy, no check;
; - unknown object size (dstlen = -1): amemmove, no check;
; - constant length that does not fit: the checked call stays (it aborts).
@buf = global [65536 x i8] zeroinitializer

define ptr @variable(ptr %src, i64 %n) {
  %r = call ptr @__memcpy_chk(ptr @buf, ptr %src, i64 %n, i64 65536)
  ret ptr %r
}

define ptr @fits(ptr %src) {
  %r = call ptr @__memcpy_chk(ptr @buf, ptr %src, i64 32768, i64 65536)
  ret ptr %r
}

define ptr @unknown_size(ptr %dst, ptr %src, i64 %n) {
  %r = call ptr @__memmove_chk(ptr %dst, ptr %src, i64 %n, i64 -1)
  ret ptr %r
}

define ptr @overflows(ptr %src) {
  %r = call ptr @__memcpy_chk(ptr @buf, ptr %src, i64 70000, i64 65536)
  ret ptr %r
}

declare ptr @__memcpy_chk(ptr, ptr, i64, i64)
declare ptr @__memmove_chk(ptr, ptr, i64, i64)
