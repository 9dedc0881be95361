; Funclet-based exception handling (Windows EH: catchswitch/catchpad): the
; function is skipped with a missed remark; nothing is rewritten in it.
define void @f(ptr %d, ptr %s, i64 %n) personality ptr @__CxxFrameHandler3 {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  invoke void @g()
          to label %ok unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %handler] unwind to caller

handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  catchret from %cp to label %ok

ok:
  ret void
}

declare void @g()
declare i32 @__CxxFrameHandler3(...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
