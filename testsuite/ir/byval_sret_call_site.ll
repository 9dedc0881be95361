; RUN: no
; A call reads its byval/byref/inalloca/preallocated pointees at the call
; site (the caller's copy into the argument area happens at the call), and
; the callee writes an sret destination: each such call waits for exactly
; the pointee's bytes of a pending copy before it, even when the callee is
; guarded (its guards run after the argument copy) or declared memory(none)
; (the attribute does not describe the call site's own copy). An sret
; destination that is a pending copy's source waits too (write of the
; source). A guarded callee called with a memory-reading operand bundle is
; treated as an ordinary call (the bundle's operands are read at the call).
%struct.S = type { [8192 x i64] }

; Guarded callee (a loop over memory it does not own).
define i64 @use(ptr byval(%struct.S) align 8 %s) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %t = phi i64 [ 0, %entry ], [ %t1, %loop ]
  %p = getelementptr i64, ptr %s, i64 %i
  %v = load i64, ptr %p
  %t1 = add i64 %t, %v
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 8192
  br i1 %c, label %loop, label %exit
exit:
  ret i64 %t1
}

define i64 @byval_to_guarded(ptr %g) {
  %tmp = alloca %struct.S, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %g, i64 65536, i1 false)
  %r = call i64 @use(ptr byval(%struct.S) align 8 %tmp)
  ret i64 %r
}

define i64 @byval_to_readnone(ptr %g) {
  %tmp = alloca %struct.S, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %g, i64 65536, i1 false)
  %r = call i64 @pure(ptr byval(%struct.S) align 8 %tmp)
  ret i64 %r
}

; The byval pointee is the copy's source: reading it needs no sync.
define i64 @byval_of_source(ptr %d, ptr %g) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %g, i64 65536, i1 false)
  %r = call i64 @pure(ptr byval(%struct.S) align 8 %g)
  ret i64 %r
}

define i64 @byref_to_readnone(ptr %g) {
  %tmp = alloca %struct.S, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %g, i64 65536, i1 false)
  %r = call i64 @pure_byref(ptr byref(%struct.S) align 8 %tmp)
  ret i64 %r
}

; sret into a pending copy's source: the callee writes it.
define void @sret_into_source(ptr %d) {
  %tmp = alloca %struct.S, align 8
  call void @fill(ptr %tmp)
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %tmp, i64 65536, i1 false)
  call void @make(ptr sret(%struct.S) align 8 %tmp)
  call void @sink(ptr %d)
  ret void
}

; sret into a pending copy's destination (guarded maker).
define void @sret_into_destination(ptr %g, ptr %out) {
  %tmp = alloca %struct.S, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %g, i64 65536, i1 false)
  call void @make_guarded(ptr sret(%struct.S) align 8 %tmp)
  %v = load i64, ptr %tmp
  store i64 %v, ptr %out
  ret void
}

define void @make_guarded(ptr sret(%struct.S) align 8 %s) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr i64, ptr %s, i64 %i
  store i64 %i, ptr %p
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 8192
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; invoke with a byval argument: the sync goes before the invoke.
define i64 @invoke_byval(ptr %g) personality ptr @__gxx_personality_v0 {
entry:
  %tmp = alloca %struct.S, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %g, i64 65536, i1 false)
  %r = invoke i64 @use(ptr byval(%struct.S) align 8 %tmp)
          to label %done unwind label %lp
done:
  ret i64 %r
lp:
  %e = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %e
}

; A guarded callee with a deopt bundle reading the destination.
define i64 @guarded_with_bundle(ptr %g, ptr %d) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %g, i64 65536, i1 false)
  %tmp = alloca %struct.S, align 8
  %r = call i64 @use(ptr byval(%struct.S) align 8 %g) [ "deopt"(ptr %d) ]
  ret i64 %r
}

declare i64 @pure(ptr byval(%struct.S) align 8) nounwind willreturn memory(none)
declare i64 @pure_byref(ptr byref(%struct.S) align 8) nounwind willreturn memory(argmem: read)
declare void @make(ptr sret(%struct.S) align 8) nounwind willreturn memory(argmem: write)
declare void @fill(ptr) nounwind willreturn
declare void @sink(ptr) nounwind willreturn
declare i32 @__gxx_personality_v0(...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
