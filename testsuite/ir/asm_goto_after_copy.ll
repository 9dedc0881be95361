; An asm goto (callbr) with a memory clobber after a copy: opaque inline
; asm, synced before; both successors see the copy completed.
define i32 @f(ptr %d, ptr %s, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  callbr void asm sideeffect "", "!i,~{memory}"()
          to label %fallthrough [label %indirect]

fallthrough:
  ret i32 0

indirect:
  %v = load i8, ptr %d
  %z = zext i8 %v to i32
  ret i32 %z
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
