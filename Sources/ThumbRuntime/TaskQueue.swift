/// First in, first out, each step O(1): a ring of slots that doubles when full (the array's
/// removeFirst moved every queued task on each take).
struct TaskQueue: Sendable {
    private var slots: [(@Sendable () -> Void)?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    mutating func append(_ task: @escaping @Sendable () -> Void) {
        if count == slots.count {
            slots = (0..<count).map { slots[(head + $0) % slots.count] } + Array(repeating: nil, count: count)
            head = 0
        }
        slots[(head + count) % slots.count] = task
        count += 1
    }

    mutating func popFirst() -> (@Sendable () -> Void)? {
        guard count > 0 else { return nil }
        defer {
            slots[head] = nil
            head = (head + 1) % slots.count
            count -= 1
        }
        return slots[head]
    }
}
