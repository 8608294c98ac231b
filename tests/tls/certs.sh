# tests/tls/certs.sh — throw-away certificates for the TLS tests and the TLS
# benchmark, made with the openssl command line (sourced; needs openssl).
#
# make_test_certs DIR writes into DIR (RSA 2048, SHA-256):
#   ca.crt ca.key               the test CA
#   server.crt server.key       CN 127.0.0.1, SAN DNS:localhost IP:127.0.0.1 IP:::1, by the CA (valid 2 days)
#   client.crt client.key       CN distlock-test-client, clientAuth, by the CA (mutual TLS)
#   expired.crt (server.key)    like server.crt, but its notAfter lies in the past
#   other-ca.crt other-ca.key   a second CA, unrelated to the first
#   other.crt (server.key)      like server.crt, signed by the second CA
#   plain.txt                   not a certificate (for "unusable file" errors)
#   encrypted.key               server.key under a passphrase (refused, never prompted for)
# Returns non-zero (with openssl's output in DIR/openssl.log) on failure.
make_test_certs() {
    local d=$1 san
    mkdir -p "$d"
    san="subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"
    (
        set -e
        cd "$d"
        openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 2 -subj "/CN=distlock test CA" \
            -keyout ca.key -out ca.crt
        openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 2 -subj "/CN=distlock other CA" \
            -keyout other-ca.key -out other-ca.crt
        openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=127.0.0.1" -keyout server.key -out server.csr
        printf '%s\nextendedKeyUsage=serverAuth\n' "$san" >server.ext
        openssl x509 -req -sha256 -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
            -extfile server.ext -out server.crt
        # OpenSSL >= 3.4 (Debian 13) sets the dates; 3.0 (Debian 12) knows only -days, and
        # takes -1 for a notAfter in the past (3.4 and later refuse that).
        openssl x509 -req -sha256 -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
            -not_before 20200101000000Z -not_after 20200102000000Z -extfile server.ext -out expired.crt ||
        openssl x509 -req -sha256 -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days -1 \
            -extfile server.ext -out expired.crt
        openssl x509 -req -sha256 -in server.csr -CA other-ca.crt -CAkey other-ca.key -CAcreateserial -days 2 \
            -extfile server.ext -out other.crt
        openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=distlock-test-client" -keyout client.key -out client.csr
        printf 'extendedKeyUsage=clientAuth\n' >client.ext
        openssl x509 -req -sha256 -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
            -extfile client.ext -out client.crt
        openssl pkey -in server.key -aes256 -passout pass:distlock-test-passphrase -out encrypted.key
        echo "not a certificate" >plain.txt
        chmod 644 ./*.key
    ) >"$d/openssl.log" 2>&1
}
