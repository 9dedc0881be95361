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
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %t, ptr %q, i64 %n, i1 false)
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %c, %loop ]
  %pp = getelementptr i32, ptr %p, i64 %i
  %a = load i32, ptr %pp
  %b = load i32, ptr %q
  store i32 %a, ptr %q
  %c = add i32 %acc, %b
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, 16
  br i1 %more, label %loop, label %done

done:
  ret i32 %c
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
