// The project asks for C++17; the targets that link maxsim are compiled as C++20.
static_assert(__cplusplus >= 202002L, "a target linking maxsim::maxsim is not compiled as C++20");
