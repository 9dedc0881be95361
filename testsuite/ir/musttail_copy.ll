; A musttail call of memcpy stays synchronous (nothing may follow it); a
; pending copy before another musttail call is synced before that call (the
; frame ends there), and the return after it needs nothing more.
define ptr @tail_copy(ptr %dst, ptr %src, i64 %n) {
  %r = musttail call ptr @memcpy(ptr %dst, ptr %src, i64 %n)
  ret ptr %r
}

define i32 @copy_then_tail(ptr %dst, ptr %src, i64 %n, i32 %x) {
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  %r = musttail call i32 @next(ptr %dst, ptr %src, i64 %n, i32 %x)
  ret i32 %r
}

declare i32 @next(ptr, ptr, i64, i32)
declare ptr @memcpy(ptr, ptr, i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
