// A storm: CLIENTS keep-alive connections, opened first, then each asks for the same URL at
// once; the time from the first request to each whole answer. That is a page many visitors
// (or a CDN's edges) hold connections to, asking for a new thumbnail at the same moment. Written
// in C with one epoll loop so that the client spends as little of this 2-core machine's CPU as
// it can: curl's 200 transfers, each connecting inside the storm, cost more CPU than thumbd spent
// answering them, and on one machine the client's CPU is the servers' loss.
//
//   storm-client http://127.0.0.1:PORT/PATH CLIENTS
//
// Prints one JSON line: {"statuses": {"200": N, ...}, "first_ms": F, "max_ms": L, "cpu_ms": C},
// C being the client's own CPU from the first request on. An answer is whole once every byte its
// Content-Length promised has arrived, or a chunked body's last chunk (or, without either, once
// the server closed); anything else (a reset, a short body, 60 s without an end) is a failure.
// Only 127.0.0.1 is accepted, so a benchmark can never reach another host.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { HEAD_MAX = 4096, MAX_CLIENTS = 10000, TIMEOUT_MS = 60000 };

struct answer {
    int fd;
    size_t received;     // all bytes, head and body
    size_t head_length;  // 0 until the head's end has arrived
    long content_length; // -1 when the head named none
    int chunked;         // Transfer-Encoding: chunked
    char tail[8];        // the last bytes received, where a chunked body's end shows
    char head[HEAD_MAX];
    int status;
    double done_ms;      // 0 until the answer is whole
};

static double now_ms(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void fail(const char *what) {
    fprintf(stderr, "storm-client: %s: %s\n", what, strerror(errno));
    exit(1);
}

// Reads the status and Content-Length once the head's end has arrived.
static void read_head(struct answer *a) {
    size_t kept = a->received < HEAD_MAX - 1 ? a->received : HEAD_MAX - 1;
    a->head[kept] = '\0';
    char *end = strstr(a->head, "\r\n\r\n");
    if (end == NULL) return;
    a->head_length = (size_t)(end - a->head) + 4;
    a->status = atoi(a->head + 9);  // "HTTP/1.1 200 OK"
    for (char *line = strstr(a->head, "\r\n"); line != NULL && line < end; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, "Content-Length:", 15) == 0) a->content_length = atol(line + 17);
        if (strncasecmp(line + 2, "Transfer-Encoding: chunked", 26) == 0) a->chunked = 1;
    }
}

// Whole: every byte Content-Length promised, or a chunked body's last chunk (no trailers).
static int is_whole(const struct answer *a) {
    if (a->head_length == 0) return 0;
    if (a->chunked) return a->received >= a->head_length + 5 && memcmp(a->tail + 3, "0\r\n\r\n", 5) == 0;
    return a->content_length >= 0 && a->received - a->head_length >= (size_t)a->content_length;
}

static void keep_tail(struct answer *a, const char *bytes, size_t count) {
    size_t size = sizeof a->tail;
    if (count >= size) {
        memcpy(a->tail, bytes + count - size, size);
    } else {
        memmove(a->tail, a->tail + count, size - count);
        memcpy(a->tail + size - count, bytes, count);
    }
}

// Opens every connection and waits until each is established, then a little longer, so that the
// server has accepted them all before the storm starts.
static void connect_all(struct answer *answers, int clients, const struct sockaddr_in *address, int epoll) {
    for (int i = 0; i < clients; i++) {
        struct answer *a = &answers[i];
        a->content_length = -1;
        a->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (a->fd < 0) fail("socket");
        if (connect(a->fd, (const struct sockaddr *)address, sizeof *address) != 0 && errno != EINPROGRESS) fail("connect");
        struct epoll_event event = {.events = EPOLLOUT, .data.ptr = a};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, a->fd, &event) != 0) fail("epoll_ctl");
    }
    struct epoll_event events[256];
    for (int established = 0; established < clients;) {
        int ready = epoll_wait(epoll, events, 256, TIMEOUT_MS);
        if (ready <= 0) fail("connecting");
        for (int e = 0; e < ready; e++) {
            struct answer *a = events[e].data.ptr;
            int error = 0;
            socklen_t length = sizeof error;
            getsockopt(a->fd, SOL_SOCKET, SO_ERROR, &error, &length);
            if (error != 0 || (events[e].events & (EPOLLERR | EPOLLHUP))) {
                errno = error;
                fail("connect");
            }
            struct epoll_event event = {.events = EPOLLIN, .data.ptr = a};
            epoll_ctl(epoll, EPOLL_CTL_MOD, a->fd, &event);
            established++;
        }
    }
    usleep(50 * 1000);
}

// Reads what has arrived on one connection; true once its answer is whole.
static int receive(struct answer *a) {
    char buffer[65536];
    ssize_t count;
    while ((count = recv(a->fd, buffer, sizeof buffer, 0)) > 0) {
        if (a->received < HEAD_MAX - 1) {
            size_t room = HEAD_MAX - 1 - a->received;
            memcpy(a->head + a->received, buffer, (size_t)count < room ? (size_t)count : room);
        }
        a->received += count;
        keep_tail(a, buffer, (size_t)count);
        if (a->head_length == 0) read_head(a);
        if (is_whole(a)) return 1;
    }
    if (count < 0 && errno == EAGAIN) return 0;
    if (count < 0) fail("recv");
    // Closed by the server: whole only if no length was promised.
    if (a->head_length == 0 || a->content_length >= 0 || a->chunked) {
        fprintf(stderr, "storm-client: an answer ended after %zu bytes, short of its length\n", a->received);
        exit(1);
    }
    return 1;
}

int main(int argc, char **argv) {
    char host[64];
    int port = 0, consumed = 0;
    if (argc != 3 || sscanf(argv[1], "http://%63[^:/]:%d%n", host, &port, &consumed) != 2 || argv[1][consumed] != '/') {
        fprintf(stderr, "usage: storm-client http://127.0.0.1:PORT/PATH CLIENTS\n");
        return 2;
    }
    const char *path = argv[1] + consumed;
    int clients = atoi(argv[2]);
    if (strcmp(host, "127.0.0.1") != 0 || clients < 1 || clients > MAX_CLIENTS) {
        fprintf(stderr, "storm-client: only 127.0.0.1, and 1 to %d clients\n", MAX_CLIENTS);
        return 2;
    }
    struct rlimit files = {(rlim_t)clients + 64, (rlim_t)clients + 64};
    if (setrlimit(RLIMIT_NOFILE, &files) != 0) fail("raising the descriptor limit");
    char request[8192];
    int request_length = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n", path, host, port);
    if (request_length >= (int)sizeof request) {
        fprintf(stderr, "storm-client: URL too long\n");
        return 2;
    }
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &address.sin_addr);
    struct answer *answers = calloc(clients, sizeof *answers);
    int epoll = epoll_create1(0);
    if (answers == NULL || epoll < 0) fail("setting up");
    connect_all(answers, clients, &address, epoll);

    double cpu_start = now_ms(CLOCK_PROCESS_CPUTIME_ID), start = now_ms(CLOCK_MONOTONIC);
    for (int i = 0; i < clients; i++) {
        // The request is far smaller than a socket buffer: one send takes it whole.
        if (send(answers[i].fd, request, request_length, MSG_NOSIGNAL) != request_length) fail("send");
    }
    struct epoll_event events[256];
    for (int open = clients; open > 0;) {
        int ready = epoll_wait(epoll, events, 256, 1000);
        if (ready < 0 && errno != EINTR) fail("epoll_wait");
        if (now_ms(CLOCK_MONOTONIC) - start > TIMEOUT_MS) {
            fprintf(stderr, "storm-client: %d answers missing after %d s\n", open, TIMEOUT_MS / 1000);
            return 1;
        }
        for (int e = 0; e < ready; e++) {
            struct answer *a = events[e].data.ptr;
            if (a->done_ms > 0 || !receive(a)) continue;
            a->done_ms = now_ms(CLOCK_MONOTONIC) - start;
            epoll_ctl(epoll, EPOLL_CTL_DEL, a->fd, NULL);
            open--;
        }
    }
    double cpu_ms = now_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    for (int i = 0; i < clients; i++) close(answers[i].fd);

    double first = answers[0].done_ms, last = 0;
    int statuses[600] = {0};
    for (int i = 0; i < clients; i++) {
        if (answers[i].done_ms < first) first = answers[i].done_ms;
        if (answers[i].done_ms > last) last = answers[i].done_ms;
        statuses[answers[i].status > 0 && answers[i].status < 600 ? answers[i].status : 0]++;
    }
    printf("{\"statuses\": {");
    const char *separator = "";
    for (int status = 0; status < 600; status++) {
        if (statuses[status] == 0) continue;
        printf("%s\"%d\": %d", separator, status, statuses[status]);
        separator = ", ";
    }
    printf("}, \"first_ms\": %.1f, \"max_ms\": %.1f, \"cpu_ms\": %.1f}\n", first, last, cpu_ms);
    return 0;
}
