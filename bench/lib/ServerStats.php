<?php
declare(strict_types=1);

namespace Bench;

/**
 * Server-side counters of the bench Redis, read over a connection of its own
 * (client name "bench-stats", excluded from every count).
 *
 * - snapshot(): INFO stats + commandstats. 'calls' is the sum of all
 *   commandstats calls except INFO/SLOWLOG/CONFIG (the harness's own), and
 *   includes commands run inside Lua scripts (redis.call); 'reads' is
 *   total_reads_processed (one per request a client sends and waits on; a
 *   pipeline arriving in one read counts once).
 * - client requests: every command a client sent, script-internal calls
 *   excluded. Counted from the slow log with slowlog-log-slower-than 0: each
 *   entry names its client; Lua's redis.call() entries have client "?:0".
 */
final class ServerStats
{
    public const NAME = 'bench-stats';
    private \Redis $r;

    public function __construct(private string $host, private int $port)
    {
        $this->r = redis_connect($host, $port, self::NAME);
        $this->r->config('SET', 'slowlog-max-len', '1000000');
        $this->slowlog(false);
    }

    public function redis(): \Redis { return $this->r; }

    /** @return array{calls:int, reads:int, by:array<string,int>} */
    public function snapshot(): array
    {
        $txt = $this->r->rawCommand('INFO', 'stats', 'commandstats');
        $calls = 0;
        $by = [];
        $reads = 0;
        foreach (explode("\n", (string) $txt) as $line) {
            $line = trim($line);
            if (preg_match('/^cmdstat_([^:]+):calls=(\d+)/', $line, $m)) {
                $cmd = $m[1];
                if ($cmd === 'info' || str_starts_with($cmd, 'slowlog') || str_starts_with($cmd, 'config')) {
                    continue;
                }
                $by[$cmd] = (int) $m[2];
                $calls += (int) $m[2];
            } elseif (str_starts_with($line, 'total_reads_processed:')) {
                $reads = (int) substr($line, strlen('total_reads_processed:'));
            }
        }
        return ['calls' => $calls, 'reads' => $reads, 'by' => $by];
    }

    /** Turns logging of every command into the slow log on or off. */
    public function slowlog(bool $on): void
    {
        $this->r->config('SET', 'slowlog-log-slower-than', $on ? '0' : '-1');
        $this->r->slowlog('reset');
    }

    public function slowlogReset(): void
    {
        $this->r->slowlog('reset');
    }

    /**
     * Commands sent by clients since the last reset, minus Lua-internal calls
     * and clients named in $exclude (plus this connection).
     * @param list<string> $exclude
     * @return array{total:int, by:array<string,int>}
     */
    public function clientRequests(array $exclude = []): array
    {
        $exclude[] = self::NAME;
        $entries = $this->r->slowlog('get', -1);
        $n = 0;
        $by = [];
        foreach ($entries ?: [] as $e) {
            $addr = (string) ($e[4] ?? '');
            $name = (string) ($e[5] ?? '');
            if ($addr === '' || $addr[0] === '?' || in_array($name, $exclude, true)) {
                continue;
            }
            $cmd = strtolower((string) ($e[3][0] ?? '?'));
            $by[$cmd] = ($by[$cmd] ?? 0) + 1;
            $n++;
        }
        ksort($by);
        return ['total' => $n, 'by' => $by];
    }
}
