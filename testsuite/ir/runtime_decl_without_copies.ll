; A module with a csync of its own type but no copy: nothing to rewrite, so
; no warning and no remark.
define i32 @f(i32 %x) {
  %r = call i32 @csync(i32 %x)
  ret i32 %r
}

declare i32 @csync(i32)
