; memcpy declared with a 32-bit length (not C's size_t on LP64) is not the
; C library's routine: the copy stays a call to it, and the remark names
; the prototype.
define ptr @f(ptr %d, ptr %s) {
  %r = call ptr @memcpy(ptr %d, ptr %s, i32 70000)
  %l = load i8, ptr %d
  ret ptr %r
}

declare ptr @memcpy(ptr, ptr, i32)
