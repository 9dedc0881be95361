; Which ends of a written destination make a copy lazy (LazyCopy,
; amemcpy_lazy + copier_drop): a free on every path does; a realloc (it
; keeps the bytes), a destination returned on one path, or a source in the
; destination's own object do not, and those copies keep amemcpy and csync.
define i64 @freed_on_both_paths(i32 %fd, ptr %src, i1 %c) nounwind {
  %b = call noalias ptr @malloc(i64 65536)
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %src, i64 65536, i1 false)
  %r = call i64 @write(i32 %fd, ptr %b, i64 65536)
  br i1 %c, label %a, label %z
a:
  call void @free(ptr %b)
  ret i64 %r
z:
  call void @free(ptr %b)
  ret i64 0
}

define ptr @reallocated(i32 %fd, ptr %src) nounwind {
  %b = call noalias ptr @malloc(i64 65536)
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %src, i64 65536, i1 false)
  %r = call i64 @write(i32 %fd, ptr %b, i64 65536)
  %n = call ptr @realloc(ptr %b, i64 131072)
  ret ptr %n
}

define ptr @returned_on_one_path(i32 %fd, ptr %src, i1 %c) nounwind {
  %b = call noalias ptr @malloc(i64 65536)
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %src, i64 65536, i1 false)
  %r = call i64 @write(i32 %fd, ptr %b, i64 65536)
  br i1 %c, label %a, label %z
a:
  call void @free(ptr %b)
  ret ptr null
z:
  ret ptr %b
}

define i64 @source_in_same_object(i32 %fd) nounwind {
  %b = call noalias ptr @malloc(i64 131072)
  %h = getelementptr inbounds i8, ptr %b, i64 65536
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %h, i64 65536, i1 false)
  %r = call i64 @write(i32 %fd, ptr %b, i64 65536)
  call void @free(ptr %b)
  ret i64 %r
}

declare noalias ptr @malloc(i64) nounwind
declare ptr @realloc(ptr, i64) nounwind
declare void @free(ptr) nounwind
declare i64 @write(i32, ptr, i64) nounwind
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
