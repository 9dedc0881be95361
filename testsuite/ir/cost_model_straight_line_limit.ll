; OPTFLAGS: -copiergen-min-overlap=8
; RUN: no
; The cost model's count at its limit (-copiergen-min-overlap=8): work is
; counted per path up to the whole-copy sync (here the return); PHIs,
; lifetime markers and unconditional branches are free, a conditional
; branch counts one. @seven: 7 instructions on the longest path, stays
; memcpy. @eight: 8, rewritten. @diamond: the longer arm (5 + branch + 1)
; decides, 7: stays memcpy. @small_memset: a constant 256-byte memset
; counts 1 + 256/64 = 5, plus 3: rewritten.
define i64 @seven(ptr %dst, ptr %src, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  %a = add i64 %n, 1
  %b = mul i64 %a, 3
  %c = xor i64 %b, 5
  %d = add i64 %c, 7
  %e = shl i64 %d, 1
  %f = sub i64 %e, %a
  %g = or i64 %f, 9
  br label %exit

exit:
  %r = phi i64 [ %g, %0 ]
  ret i64 %r
}

define i64 @eight(ptr %dst, ptr %src, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  %a = add i64 %n, 1
  %b = mul i64 %a, 3
  %c = xor i64 %b, 5
  %d = add i64 %c, 7
  %e = shl i64 %d, 1
  %f = sub i64 %e, %a
  %g = or i64 %f, 9
  %h = and i64 %g, 1023
  ret i64 %h
}

define i64 @diamond(ptr %dst, ptr %src, i64 %n, i1 %c) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  br i1 %c, label %long, label %short

long:
  %a = add i64 %n, 1
  %b = mul i64 %a, 3
  %x = xor i64 %b, 5
  %d = add i64 %x, 7
  %e = shl i64 %d, 1
  br label %exit

short:
  %s = add i64 %n, 2
  br label %exit

exit:
  %r = phi i64 [ %e, %long ], [ %s, %short ]
  %r2 = add i64 %r, 1
  ret i64 %r2
}

define i64 @small_memset(ptr %dst, ptr %src, i64 %n, ptr noalias %scratch) {
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  call void @llvm.memset.p0.i64(ptr %scratch, i8 0, i64 256, i1 false)
  %a = add i64 %n, 1
  %b = mul i64 %a, 3
  %c = xor i64 %b, 5
  ret i64 %c
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
