; libcopier exists for x86-64 Linux only: a module for another Linux
; target (here AArch64) is left alone, with a missed remark
; UnsupportedTarget per copy, instead of calls no library can satisfy.
target triple = "aarch64-unknown-linux-gnu"

define i8 @copy_then_read(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  %x = load i8, ptr %d
  ret i8 %x
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
