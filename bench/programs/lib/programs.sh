# Sourced after lib/build.sh: benchmark programs that are not part of a
# package's own build, built the same two ways as the package's tree.
#
#   pbc_program MODE   builds <protobuf-c tree>/bench/pbc_unpack (from
#                      bench/compiler/pbc_unpack.c and bigmsg.proto) against
#                      that tree's libprotobuf-c.a; prints its path
#   bench_cc MODE      prints the C compiler of MODE: clang-22, or copiergen cc

bench_cc() {
  case $1 in
    plain) echo clang-22 ;;
    copiergen) echo "$COPIERGEN cc" ;;
    *) echo "bench_cc: unknown mode $1" >&2; return 2 ;;
  esac
}

pbc_program() {
  local mode=$1 tree dir cc
  tree=$(bench_tree protobuf-c "$mode") || return 2
  cc=$(bench_cc "$mode") || return 2
  dir="$tree/bench"
  mkdir -p "$dir"
  protoc --plugin=protoc-gen-c="$tree/protoc-c/protoc-gen-c" --c_out="$dir" \
    -I"$COPIER_ROOT/bench/compiler" "$COPIER_ROOT/bench/compiler/bigmsg.proto" || return 1
  # shellcheck disable=SC2086 # cc is "copiergen cc" in copiergen mode
  $cc -O2 -g -I"$tree" -I"$dir" "$COPIER_ROOT/bench/compiler/pbc_unpack.c" "$dir/bigmsg.pb-c.c" \
    "$tree/protobuf-c/.libs/libprotobuf-c.a" -o "$dir/pbc_unpack" >"$dir/build.log" 2>&1 ||
    { tail -20 "$dir/build.log" >&2; return 1; }
  echo "$dir/pbc_unpack"
}
