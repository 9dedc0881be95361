; OPTFLAGS: -copiergen-max-queries=1 -copiergen-min-overlap=0
; A guarded callee (called while a copy it may read is pending) whose own
; analysis runs out of budget still keeps its promise to its callers: it
; waits for every pending copy at its entry (csync_all), and its own copy
; stays synchronous. The caller needs no sync before the call.
define i32 @caller(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  %r = call i32 @callee(ptr %d, ptr %s, ptr %d, i64 %n)
  ret i32 %r
}

define internal i32 @callee(ptr %p, ptr %q, ptr %t, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %t, ptr %q, i64 %n, i1 false)
  %a = load i32, ptr %p
  %b = load i32, ptr %q
  store i32 %a, ptr %q
  store i32 %b, ptr %p
  %c = add i32 %a, %b
  ret i32 %c
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
