; A scalable-vector load from the destination has no compile-time size: the
; whole copy is synced before it (UnknownAccess), never a wrong narrow size.
define <vscale x 4 x i32> @f(ptr %dst, ptr %src, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  %v = load <vscale x 4 x i32>, ptr %dst
  ret <vscale x 4 x i32> %v
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
