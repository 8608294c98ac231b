<?php
declare(strict_types=1);

/**
 * A minimal Redis client speaking RESP2 over stream_socket_client(), for the
 * examples only (no phpredis dependency). One connection per instance; make a
 * new instance in every process after fork(): a socket shared by two
 * processes interleaves their replies.
 *
 * Accepts the same URI forms as DistLock:
 *   redis://[[user]:password@]host[:port][/db][?timeout=S&connect_timeout=S]
 *   unix:///path/to/redis.sock[?db=N&timeout=S&connect_timeout=S]
 */

final class RespError extends RuntimeException {}

final class Resp
{
    /** @var resource */
    private $sock;

    public function __construct(#[\SensitiveParameter] string $uri = 'redis://127.0.0.1:6379')
    {
        [$target, $user, $pass, $db, $timeout, $connectTimeout] = self::parseUri($uri);
        $errno = 0;
        $errstr = '';
        $sock = @stream_socket_client($target, $errno, $errstr, $connectTimeout);
        if ($sock === false) {
            throw new RespError("cannot connect to $target: $errstr ($errno)");
        }
        stream_set_timeout($sock, (int)$timeout, (int)(fmod($timeout, 1.0) * 1e6));
        if (str_starts_with($target, 'tcp://') && function_exists('socket_import_stream')) {
            $s = socket_import_stream($sock);
            if ($s !== false && $s !== null) {
                @socket_set_option($s, SOL_TCP, TCP_NODELAY, 1);
            }
        }
        $this->sock = $sock;
        if ($pass !== null) {
            $user !== null ? $this->cmd('AUTH', $user, $pass) : $this->cmd('AUTH', $pass);
        }
        if ($db !== 0) {
            $this->cmd('SELECT', (string)$db);
        }
    }

    /** @return array{string, ?string, ?string, int, float, float} */
    private static function parseUri(#[\SensitiveParameter] string $uri): array
    {
        if (strncasecmp($uri, 'unix://', 7) === 0) {   // parse_url() refuses unix:///path
            $path = substr($uri, 7);
            $query = '';
            if (($qpos = strpos($path, '?')) !== false) {
                $query = substr($path, $qpos + 1);
                $path = substr($path, 0, $qpos);
            }
            $parts = ['scheme' => 'unix', 'path' => $path, 'query' => $query];
        } else {
            $parts = parse_url($uri);
        }
        if ($parts === false || !isset($parts['scheme'])) {
            throw new RespError('malformed Redis URI');
        }
        parse_str($parts['query'] ?? '', $q);
        $timeout = isset($q['timeout']) ? (float)$q['timeout'] : 5.0;
        $connectTimeout = isset($q['connect_timeout']) ? (float)$q['connect_timeout'] : 2.0;
        switch (strtolower($parts['scheme'])) {
            case 'redis':
                $host = $parts['host'] ?? '127.0.0.1';
                $port = $parts['port'] ?? 6379;
                $target = "tcp://$host:$port";   // parse_url keeps IPv6 brackets
                $path = ltrim($parts['path'] ?? '', '/');
                $db = (int)($path !== '' ? $path : ($q['db'] ?? 0));
                $user = isset($parts['user']) && $parts['user'] !== '' ? rawurldecode($parts['user']) : null;
                $pass = isset($parts['pass']) ? rawurldecode($parts['pass']) : null;
                return [$target, $user, $pass, $db, $timeout, $connectTimeout];
            case 'unix':
                if (($parts['path'] ?? '') === '') {
                    throw new RespError('unix:// URI without a path');
                }
                return ['unix://' . $parts['path'], null, null, (int)($q['db'] ?? 0), $timeout, $connectTimeout];
            default:
                throw new RespError("unsupported URI scheme '{$parts['scheme']}' (redis:// or unix://)");
        }
    }

    /** Sends one command, returns its reply (string|int|array|null); throws RespError on an error reply. */
    public function cmd(string ...$args): mixed
    {
        $this->write(self::encode($args));
        $r = $this->read();
        if ($r instanceof RespError) {
            throw $r;
        }
        return $r;
    }

    /**
     * Sends several commands in one write, returns their replies in order.
     * Error replies come back as RespError objects (not thrown).
     *
     * @param list<list<string>> $commands
     */
    public function pipeline(array $commands): array
    {
        $buf = '';
        foreach ($commands as $c) {
            $buf .= self::encode($c);
        }
        $this->write($buf);
        $out = [];
        foreach ($commands as $_) {
            $out[] = $this->read();
        }
        return $out;
    }

    public function close(): void
    {
        if (is_resource($this->sock)) {
            fclose($this->sock);
        }
    }

    private static function encode(array $args): string
    {
        $s = '*' . count($args) . "\r\n";
        foreach ($args as $a) {
            $a = (string)$a;
            $s .= '$' . strlen($a) . "\r\n" . $a . "\r\n";
        }
        return $s;
    }

    private function write(string $buf): void
    {
        while ($buf !== '') {
            $n = @fwrite($this->sock, $buf);
            if ($n === false || $n === 0) {
                throw new RespError('write to Redis failed');
            }
            $buf = substr($buf, $n);
        }
    }

    private function line(): string
    {
        $l = fgets($this->sock);
        if ($l === false) {
            $meta = stream_get_meta_data($this->sock);
            throw new RespError($meta['timed_out'] ? 'read from Redis timed out' : 'connection closed by Redis');
        }
        return substr($l, 0, -2);
    }

    /** One reply; an error reply comes back as a RespError object, I/O errors are thrown. */
    private function read(): mixed
    {
        $l = $this->line();
        $type = $l[0] ?? '';
        $rest = substr($l, 1);
        switch ($type) {
            case '+':
                return $rest;
            case '-':
                return new RespError($rest);   // error reply: cmd() throws it, pipeline() returns it
            case ':':
                return (int)$rest;
            case '$':
                $len = (int)$rest;
                if ($len < 0) {
                    return null;
                }
                $data = '';
                $need = $len + 2;
                while (strlen($data) < $need) {
                    $chunk = fread($this->sock, $need - strlen($data));
                    if ($chunk === false || $chunk === '') {
                        throw new RespError('short read from Redis');
                    }
                    $data .= $chunk;
                }
                return substr($data, 0, $len);
            case '*':
                $n = (int)$rest;
                if ($n < 0) {
                    return null;
                }
                $out = [];
                for ($i = 0; $i < $n; $i++) {
                    $out[] = $this->read();
                }
                return $out;
            default:
                throw new RespError('protocol error: unexpected reply ' . json_encode($l));
        }
    }
}
