; Irreducible control flow (a cycle with two entries, not a natural loop):
; the dataflow needs no loop structure; the accesses in the cycle get plain
; narrow csyncs (no windowed guard, since LoopInfo finds no loop).
define i32 @irreducible(ptr %dst, ptr %src, i64 %n, i1 %c) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  br i1 %c, label %a, label %b

a:
  %i.a = phi i64 [ 0, %entry ], [ %i.b.next, %b ]
  %pa = getelementptr i8, ptr %dst, i64 %i.a
  %va = load i8, ptr %pa
  %i.a.next = add i64 %i.a, 1
  %ca = icmp ult i64 %i.a.next, %n
  br i1 %ca, label %b, label %exit

b:
  %i.b = phi i64 [ 0, %entry ], [ %i.a.next, %a ]
  %pb = getelementptr i8, ptr %dst, i64 %i.b
  store i8 0, ptr %pb
  %i.b.next = add i64 %i.b, 1
  %cb = icmp ult i64 %i.b.next, %n
  br i1 %cb, label %a, label %exit

exit:
  ret i32 0
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
