import Testing

@testable import TIP

@Suite("LRU list")
struct LRUListTests {
    /// Applies random operations to the list and to an array model (newest first) and compares them
    /// after every step.
    @Test("Matches an array model over random operation sequences", arguments: 0..<40)
    func model(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &+ 100)
        let lru = LRUList<Int, Int>()
        var model: [(Int, Int)] = []
        for step in 0..<400 {
            let key = Int(rng.next() % 12)
            switch rng.next() % 7 {
            case 0, 1:
                let previous = lru.insertAtHead(key, step)
                #expect(previous == model.first { $0.0 == key }?.1)
                model.removeAll { $0.0 == key }
                model.insert((key, step), at: 0)
            case 2:
                let previous = lru.insertAtTail(key, step)
                #expect(previous == model.first { $0.0 == key }?.1)
                model.removeAll { $0.0 == key }
                model.append((key, step))
            case 3:
                let value = lru.touch(key)
                if let index = model.firstIndex(where: { $0.0 == key }) {
                    #expect(value == model[index].1)
                    model.insert(model.remove(at: index), at: 0)
                } else {
                    #expect(value == nil)
                }
            case 4:
                let removed = lru.remove(key)
                let index = model.firstIndex { $0.0 == key }
                #expect(removed == index.map { model[$0].1 })
                if let index { model.remove(at: index) }
            case 5:
                let tail = lru.removeTail()
                #expect(tail?.key == model.last?.0)
                if !model.isEmpty { model.removeLast() }
            default:
                let updated = lru.updateValue(-step, for: key)
                if let index = model.firstIndex(where: { $0.0 == key }) {
                    #expect(updated)
                    model[index].1 = -step
                } else {
                    #expect(!updated)
                }
            }
            let entries = lru.entriesNewestFirst
            #expect(entries.map(\.key) == model.map(\.0))
            #expect(entries.map(\.value) == model.map(\.1))
            #expect(lru.count == model.count && lru.first?.key == model.first?.0 && lru.last?.key == model.last?.0)
        }
        lru.removeAll()
        #expect(lru.isEmpty && lru.first == nil && lru.last == nil && lru.removeTail() == nil)
    }

    @Test("A long list is released without deep recursion")
    func longList() {
        let lru = LRUList<Int, [UInt8]>()
        for i in 0..<200_000 { lru.insertAtHead(i, [UInt8(truncatingIfNeeded: i)]) }
        #expect(lru.count == 200_000 && lru.last?.key == 0 && lru.peek(5) == [5])
        lru.removeAll()
        #expect(lru.isEmpty)
    }
}
