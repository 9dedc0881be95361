; Calls to memcpy with a non-standard prototype (a K&R-style declaration
; returning int whose result is used), and calls to a memmove the module
; defines itself, stay synchronous.
define i32 @knr(ptr %d, ptr %s, i64 %n) {
  %r = call i32 (ptr, ptr, i64, ...) @memcpy(ptr %d, ptr %s, i64 %n)
  ret i32 %r
}

declare i32 @memcpy(ptr, ptr, i64, ...)

; A program that defines its own memmove: calls to it stay calls to it.
define i8 @calls_own_memmove(ptr %d, ptr %s, i64 %n) {
  %r = call ptr @memmove(ptr %d, ptr %s, i64 %n)
  %v = load i8, ptr %r
  ret i8 %v
}

define ptr @memmove(ptr %d, ptr %s, i64 %n) {
  %c = icmp ult ptr %d, %s
  ret ptr %d
}
