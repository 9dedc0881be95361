; A module for a target libcopier does not run on (a GPU) is left alone.
target triple = "nvptx64-nvidia-cuda"

define void @kernel(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
