// Extended attributes (getxattr, setxattr, listxattr, removexattr): not part of Swift's Glibc module.
#include <sys/types.h>
#include <sys/xattr.h>
