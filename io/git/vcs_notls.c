/* slipway never reaches the network, so the statically linked libgit2
 * gets no TLS stream, no SSH transport and no GSSAPI authentication.  Debian's libgit2 sets mbedTLS up in
 * git_libgit2_init, which parses the whole system CA bundle (about 3 ms
 * of every command).  These four definitions take the place of the one
 * archive member that holds libgit2's mbedTLS stream
 * (src/libgit2/streams/mbedtls.c), so the linker never pulls it in: init
 * does nothing, and any attempt at a TLS connection or a certificate
 * location fails with an error.  With a shared libgit2 they are inert
 * (the library's own calls bind inside it).  The names and signatures
 * are libgit2's internal ones, declared here rather than in a header. */

#include <git2.h>

struct git_stream;
struct git_http_auth_context;
struct git_net_url;
struct git_smart_subtransport;

int git_mbedtls_stream_global_init(void);
int git_mbedtls_stream_new(struct git_stream **out, const char *host, const char *port);
int git_mbedtls_stream_wrap(struct git_stream **out, struct git_stream *in, const char *host);
int git_mbedtls__set_cert_location(const char *file, const char *path);
int git_http_auth_negotiate(struct git_http_auth_context **out, const struct git_net_url *url);
int git_transport_ssh_global_init(void);
int git_smart_subtransport_ssh(struct git_smart_subtransport **out, struct git_transport *owner,
			       void *param);
int git_transport_ssh_with_paths(struct git_transport **out, struct git_remote *owner,
				 void *payload);

static int no_tls(void)
{
	git_error_set_str(GIT_ERROR_SSL, "slipway is built without TLS");
	return -1;
}

int git_mbedtls_stream_global_init(void)
{
	return 0;
}

int git_mbedtls_stream_new(struct git_stream **out, const char *host, const char *port)
{
	(void)host;
	(void)port;
	*out = NULL;
	return no_tls();
}

int git_mbedtls_stream_wrap(struct git_stream **out, struct git_stream *in, const char *host)
{
	(void)in;
	(void)host;
	*out = NULL;
	return no_tls();
}

int git_mbedtls__set_cert_location(const char *file, const char *path)
{
	(void)file;
	(void)path;
	return no_tls();
}

/* HTTP Negotiate (GSSAPI) authentication would tie in Kerberos' shared
 * libraries; it is one more network feature slipway never uses. */
int git_http_auth_negotiate(struct git_http_auth_context **out, const struct git_net_url *url)
{
	(void)url;
	*out = NULL;
	git_error_set_str(GIT_ERROR_NET, "slipway is built without Negotiate authentication");
	return -1;
}

/* The SSH transport (libssh2, which pulls most of libcrypto in): the same
 * three definitions as its archive member (src/libgit2/transports/ssh.c). */
int git_transport_ssh_global_init(void)
{
	return 0;
}

static int no_ssh(void)
{
	git_error_set_str(GIT_ERROR_NET, "slipway is built without SSH");
	return -1;
}

int git_smart_subtransport_ssh(struct git_smart_subtransport **out, struct git_transport *owner,
			       void *param)
{
	(void)owner;
	(void)param;
	*out = NULL;
	return no_ssh();
}

int git_transport_ssh_with_paths(struct git_transport **out, struct git_remote *owner,
				 void *payload)
{
	(void)owner;
	(void)payload;
	*out = NULL;
	return no_ssh();
}
