// libcurl for Swift: the header, plus typed wrappers for the variadic calls Swift cannot make
// (curl_easy_setopt, curl_multi_setopt, curl_share_setopt, curl_easy_getinfo) and the constants
// that are macros Swift does not import.
#ifndef TIP_CCURL_SHIM_H
#define TIP_CCURL_SHIM_H

#include <curl/curl.h>

static inline CURLcode tip_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tip_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tip_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode tip_curl_easy_setopt_write_function(CURL *handle, CURLoption option,
                                                           curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLMcode tip_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLSHcode tip_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

static inline CURLcode tip_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode tip_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode tip_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

/// Restricts a transfer, and the redirects it follows, to http and https.
static inline CURLcode tip_curl_easy_allow_only_http(CURL *handle) {
#if LIBCURL_VERSION_NUM >= 0x075500
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    long protocols = CURLPROTO_HTTP | CURLPROTO_HTTPS;
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PROTOCOLS, protocols);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS, protocols);
#endif
}

/// `CURL_GLOBAL_ALL`.
static const long tip_curl_global_all = CURL_GLOBAL_ALL;
/// `CURLVERSION_NOW`.
static const CURLversion tip_curl_version_now = CURLVERSION_NOW;
/// `CURLPAUSE_CONT` (a macro of macros).
static const int tip_curl_pause_continue = CURLPAUSE_CONT;
/// `CURL_WRITEFUNC_PAUSE`.
static const size_t tip_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

#endif
