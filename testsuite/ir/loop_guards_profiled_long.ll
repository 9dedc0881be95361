; OPTFLAGS: -copiergen-threshold=512
; The LZ encoder loop of loop_guards_table.c (a hash-table access beside a
; copy of run-time length on every iteration), at a threshold of 512 bytes,
; which the size profile's last bucket ("513 bytes or more") reaches.
; @encode_long: a size profile with all 200 calls at 513 bytes or more
; (ProfiledLong): the copies are long, they pay for the table's checks, so
; the loop-guard rule does not apply and the copy is rewritten.
; @encode_unprofiled: no profile: the loop-guard rule keeps it memcpy.
define i64 @encode_long(ptr %0, ptr %1, i64 %2, ptr %3) {
  %5 = icmp ult i64 %2, 9
  br i1 %5, label %30, label %6

6:
  %7 = add i64 %2, -8
  br label %8

8:
  %9 = phi i64 [ 0, %6 ], [ %25, %8 ]
  %10 = phi i64 [ 0, %6 ], [ %27, %8 ]
  %11 = getelementptr inbounds nuw i8, ptr %1, i64 %10
  %12 = load i32, ptr %11, align 1
  %13 = mul i32 %12, -1640531535
  %14 = lshr i32 %13, 20
  %15 = zext nneg i32 %14 to i64
  %16 = getelementptr inbounds nuw i32, ptr %3, i64 %15
  %17 = load i32, ptr %16, align 4
  %18 = lshr i32 %17, 12
  %19 = add nuw nsw i32 %18, 1
  %20 = zext nneg i32 %19 to i64
  %21 = sub i64 %7, %10
  %22 = call i64 @llvm.umin.i64(i64 %21, i64 %20)
  %23 = trunc i64 %10 to i32
  store i32 %23, ptr %16, align 4
  %24 = getelementptr inbounds nuw i8, ptr %0, i64 %9
  call void @llvm.memcpy.p0.p0.i64(ptr align 1 %24, ptr nonnull align 1 %11, i64 %22, i1 false), !prof !0
  %25 = add i64 %22, %9
  %26 = add i64 %10, 1
  %27 = add i64 %26, %22
  %28 = add i64 %27, 9
  %29 = icmp ugt i64 %28, %2
  br i1 %29, label %30, label %8

30:
  %31 = phi i64 [ 0, %4 ], [ %25, %8 ]
  ret i64 %31
}

define i64 @encode_unprofiled(ptr %0, ptr %1, i64 %2, ptr %3) {
  %5 = icmp ult i64 %2, 9
  br i1 %5, label %30, label %6

6:
  %7 = add i64 %2, -8
  br label %8

8:
  %9 = phi i64 [ 0, %6 ], [ %25, %8 ]
  %10 = phi i64 [ 0, %6 ], [ %27, %8 ]
  %11 = getelementptr inbounds nuw i8, ptr %1, i64 %10
  %12 = load i32, ptr %11, align 1
  %13 = mul i32 %12, -1640531535
  %14 = lshr i32 %13, 20
  %15 = zext nneg i32 %14 to i64
  %16 = getelementptr inbounds nuw i32, ptr %3, i64 %15
  %17 = load i32, ptr %16, align 4
  %18 = lshr i32 %17, 12
  %19 = add nuw nsw i32 %18, 1
  %20 = zext nneg i32 %19 to i64
  %21 = sub i64 %7, %10
  %22 = call i64 @llvm.umin.i64(i64 %21, i64 %20)
  %23 = trunc i64 %10 to i32
  store i32 %23, ptr %16, align 4
  %24 = getelementptr inbounds nuw i8, ptr %0, i64 %9
  call void @llvm.memcpy.p0.p0.i64(ptr align 1 %24, ptr nonnull align 1 %11, i64 %22, i1 false)
  %25 = add i64 %22, %9
  %26 = add i64 %10, 1
  %27 = add i64 %26, %22
  %28 = add i64 %27, 9
  %29 = icmp ugt i64 %28, %2
  br i1 %29, label %30, label %8

30:
  %31 = phi i64 [ 0, %4 ], [ %25, %8 ]
  ret i64 %31
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare i64 @llvm.umin.i64(i64, i64)

!0 = !{!"VP", i32 1, i64 200, i64 513, i64 200}
