; A memcpy called with invoke (odd but valid IR) stays synchronous. A
; rewritten copy into a private heap buffer followed by an invoke that may
; throw but cannot touch the buffer is not synced before the invoke: the
; unwind edge carries the pending copy to the landing pad, which syncs
; before its own access, before free, and before resume.
define i8 @f(ptr %d, ptr %s, i64 %n) personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke ptr @memcpy(ptr %d, ptr %s, i64 %n)
          to label %next unwind label %lp

next:
  %buf = call noalias ptr @malloc(i64 %n)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %s, i64 %n, i1 false)
  invoke void @may_throw(i32 1)
          to label %done unwind label %lp2

done:
  %v = load i8, ptr %buf
  call void @free(ptr %buf)
  ret i8 %v

lp:
  %e = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %e

lp2:
  %e2 = landingpad { ptr, i32 } cleanup
  %w = load i8, ptr %buf
  call void @sink(i8 %w)
  call void @free(ptr %buf)
  resume { ptr, i32 } %e2
}

declare void @may_throw(i32) willreturn memory(none)
declare void @sink(i8) nounwind willreturn memory(none)
declare noalias ptr @malloc(i64)
declare void @free(ptr allocptr captures(none)) nounwind willreturn allockind("free") memory(argmem: readwrite, inaccessiblemem: readwrite)
declare ptr @memcpy(ptr, ptr, i64)
declare i32 @__gxx_personality_v0(...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
