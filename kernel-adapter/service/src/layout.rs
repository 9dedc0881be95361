//! Compile-time proof that a Rust struct of atomics has the layout of a
//! bindgen struct from the UAPI header (`copier_abi::uapi`), so a change of
//! `include/linux/copier.h` that the service did not follow fails the build.

/// Size of the field `f` selects, for [`same_layout`].
pub(crate) const fn field_size<T, F>(_f: fn(&T) -> &F) -> usize {
    core::mem::size_of::<F>()
}

/// `same_layout!(Rust = C { a, b, ... })`: the two types have the same size
/// and alignment, and each listed field the same offset and size in both.
/// List every field of `C`: the size check catches a field that was added.
///
/// `same_layout!(Rust: starts with C { a, b, ... })`: `Rust` begins with the
/// fields of `C` at `C`'s offsets and sizes, and they are all of `C` (the
/// header's structs have no implicit padding).
macro_rules! same_layout {
    ($rust:ty: starts with $c:ty { $($f:ident),* $(,)? }) => {
        const _: () = {
            use core::mem::{offset_of, size_of};
            use $crate::layout::field_size;
            assert!(0 $(+ field_size::<$c, _>(|x| &x.$f))* == size_of::<$c>(), concat!(stringify!($c), ": a field is not listed"));
            $(
                assert!(
                    offset_of!($rust, $f) == offset_of!($c, $f),
                    concat!(stringify!($rust), "::", stringify!($f), ": offset differs from ", stringify!($c))
                );
                assert!(
                    field_size::<$rust, _>(|x| &x.$f) == field_size::<$c, _>(|x| &x.$f),
                    concat!(stringify!($rust), "::", stringify!($f), ": size differs from ", stringify!($c))
                );
            )*
        };
    };
    ($rust:ty = $c:ty { $($f:ident),* $(,)? }) => {
        const _: () = {
            use core::mem::{align_of, offset_of, size_of};
            use $crate::layout::field_size;
            assert!(size_of::<$rust>() == size_of::<$c>(), concat!(stringify!($rust), ": size differs from ", stringify!($c)));
            assert!(align_of::<$rust>() == align_of::<$c>(), concat!(stringify!($rust), ": alignment differs from ", stringify!($c)));
            $(
                assert!(
                    offset_of!($rust, $f) == offset_of!($c, $f),
                    concat!(stringify!($rust), "::", stringify!($f), ": offset differs from ", stringify!($c))
                );
                assert!(
                    field_size::<$rust, _>(|x| &x.$f) == field_size::<$c, _>(|x| &x.$f),
                    concat!(stringify!($rust), "::", stringify!($f), ": size differs from ", stringify!($c))
                );
            )*
        };
    };
}
pub(crate) use same_layout;
