<?php
declare(strict_types=1);

namespace Bench;

/**
 * The lock's commands alone, as a baseline for the uncontended cycle on a
 * server with a native compare-and-delete (Valkey >= 9.0): SET key token NX PX,
 * then DELIFEQ key token, through phpredis (rawCommand), 128-bit random token.
 * No waiting, no waking of waiters. Servers without DELIFEQ: ServerLacks.
 */
final class NativeCommandsAdapter implements Adapter
{
    private \Redis $r;

    public function __construct(string $host, int $port)
    {
        $this->r = redis_connect($host, $port);
        $info = $this->r->rawCommand('COMMAND', 'INFO', 'DELIFEQ');
        if (!is_array($info) || empty($info[0])) {
            throw new ServerLacks('the server has no DELIFEQ');
        }
    }

    public function id(): string { return 'native-commands'; }

    public function waits(): string { return '-'; }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void { $this->run('bench:warm:native', 5.0, 0.0, null); }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $token = bin2hex(random_bytes(16));
        if (!$this->r->set($name, $token, ['nx', 'px' => (int) ceil($ttl * 1000)])) {
            return false;
        }
        return hold_and_release($body, function () use ($name, $token): void {
            $deleted = $this->r->rawCommand('DELIFEQ', $name, $token);
            if ($deleted !== 1) {   // a refused DELIFEQ would leave the key and make every later cycle a failed SET
                throw new \RuntimeException('DELIFEQ answered ' . var_export($deleted, true) . ': ' . $this->r->getLastError());
            }
        });
    }
}
