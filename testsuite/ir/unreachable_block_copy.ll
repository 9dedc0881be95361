; A copy in a block unreachable from the entry is left alone (missed remark
; Unreachable); the reachable copy is rewritten and synced before return.
define void @f(ptr %dst, ptr %src, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  ret void

dead:
  call void @llvm.memcpy.p0.p0.i64(ptr %src, ptr %dst, i64 %n, i1 false)
  %v = load i8, ptr %src
  br label %dead
}

define void @only_dead(ptr %dst, ptr %src, i64 %n) {
entry:
  ret void

dead:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  br label %dead
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
