; A copy with a 32-bit length (llvm.memcpy.p0.p0.i32, as 32-bit front ends
; emit) is rewritten with the length zero-extended to size_t.
define i8 @f(ptr %d, ptr %s, i32 %n) {
  call void @llvm.memcpy.p0.p0.i32(ptr %d, ptr %s, i32 %n, i1 false)
  %v = load i8, ptr %d
  ret i8 %v
}

declare void @llvm.memcpy.p0.p0.i32(ptr, ptr, i32, i1)
