; A memcpy call that is not the C library's stays as it is (missed remark
; NoBuiltin): a call marked `nobuiltin` (clang -fno-builtin, the program
; brings its own memcpy from another file) or in a function built with
; "no-builtins" / "no-builtin-memcpy". libcopier would otherwise copy with
; the program's memcpy from its service thread. Under "no-builtin-memcpy"
; a memmove stays too (ProgramCopyRoutine: libcopier copies with memcpy).
; The last function is the control: a plain call is rewritten.
target triple = "x86_64-unknown-linux-gnu"

declare ptr @memcpy(ptr, ptr, i64)
declare ptr @memmove(ptr, ptr, i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define i8 @nobuiltin_call(ptr %d, ptr %s, i64 %n) {
  %r = call ptr @memcpy(ptr %d, ptr %s, i64 %n) nobuiltin
  %x = load i8, ptr %d
  ret i8 %x
}

define i8 @no_builtins_function(ptr %d, ptr %s, i64 %n) "no-builtins" {
  %r = call ptr @memcpy(ptr %d, ptr %s, i64 %n)
  call void @llvm.memcpy.p0.p0.i64(ptr %s, ptr %d, i64 %n, i1 false)
  %x = load i8, ptr %d
  ret i8 %x
}

define i8 @no_builtin_memcpy_function(ptr %d, ptr %s, i64 %n) "no-builtin-memcpy" {
  %r = call ptr @memmove(ptr %d, ptr %s, i64 %n)
  %x = load i8, ptr %d
  ret i8 %x
}

define i8 @library_call(ptr %d, ptr %s, i64 %n) {
  %r = call ptr @memcpy(ptr %d, ptr %s, i64 %n)
  %x = load i8, ptr %d
  ret i8 %x
}
