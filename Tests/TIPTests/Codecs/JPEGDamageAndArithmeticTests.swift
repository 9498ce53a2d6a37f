import Foundation
import Testing

@testable import TIP

/// JPEGs that libjpeg decodes with a warning that pixels were lost, and arithmetic-coded JPEGs (which libjpeg
/// cannot decode in steps) fed a chunk at a time.
@Suite("JPEG: damage warnings and arithmetic coding")
struct JPEGDamageAndArithmeticTests {
    /// A 64x64 baseline JPEG (cjpeg -quality 90) with four bytes of its scan inverted: libjpeg warns "Corrupt JPEG
    /// data: bad Huffman code" and nothing else, and the blocks after the damage are wrong.
    static let badHuffmanCode = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMU
        FRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU
        FBQUFBQUFBT/wAARCABAAEADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF
        BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW
        V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi
        4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC
        AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm
        Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq
        8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDwDwzpzJbsZGYNID8uCck8AjPQZI79vy2NTH2eJlT9yuBtz8vIIGcHoTz09q0LOFYrZQmN
        zDPlgcHPB7g5x6nrmuc8R3sUMS7CQgK7kYDaOO49T/jXz9XButW2P9AMRiKWSYDTR2OD8YaokIy5CIP4CobPyjJ+gzx3/DivKNXZ
        b28MWJA2dwKnk59Ocdf1JNdp4nvWZpTuLbtykOuzjqM4HJ5z69eOTXN2tqLgySOCqbQCvJwSM8Z9cjnof1r6jD4JYenzNH/wDnDv
        TzLFunB3KujaLNdyoq53xsS6jqOMgA4xkYNeveEvCcDwRhgVTgEDdk4J9Rycn09ayvC3hXLIY22pgMFAwo6AEc9Tx16ete2+HfDQ
        s4UyjKEZgxDA85B4PGMn146etfB59jVBcsWfqfh3kvw1pFOz0ldPcoI22tlvkwB0yPT8+/4muX8TEhGB2FivIPOeD359B0/+vXpu
        pWoh+WSPnfvZsjGeo5+nHT1ryvxfIZZJSJCxHRuSR1x0ByOfx/PH53h5OrUuz9k4q4kp5VgnCLs7Hc37x2cMgJ2EAgg8fVj2J4zx
        Xlfia6Yxl1bykU5YNnqMA/jwT0712PijVHSJyknPC/KCCMc4zjjqv1OPXjynxFeebLKpAI+YjYoAx0yQSD2HP681/WGFyhp8zR+Y
        +I3E/sISowkc7dF5GYyIuASSGJIUZ4JIPXBOOPSuh8O6ALm5G6MllI8sjjAz1wDj37fhVXTdPeSTyziTzXIZicEAjuO+OOc+nrmv
        W/A3hwzmFpAkaqV5DZKnn8AQPX0715mcyWGpOx/MWRYapm2O9o9dTa8LeGENusu2MgLhVBIJ68446n0xXpdtpzWsQjCM0akqC5we
        Sev5H6c9al8NeHligLRqQuNm8twAB0OPcDrxitbVIktrabEgL8hwoJwMknGSPy7gE49P5zzau61Vo/tTLFSybAJvojgvEMkUMMoy
        I4tpGYx1PPXPfjrmvJvErs7szOWVzgbT1zwOQOMY/T3r0vxZcbnljyCoUuAx2sDtxj2IHqO9cDdW0k1y5w5xkMqgluvv/nr9a5cP
        FU48zP5E8ROLpYms6UJGB4p1VnZyXWT5TuAb7oHJ/DORj2H0rj5N11LtUjeB8xYdCPuk9OOD79Kl1Cf7U8iqJH+bIIwO/QdePvVP
        4fsvtc8QGXMmNpc4cAnGc/l06gV/oXistjhqTdjxuKc0qZtjnCLvqdH4P0F7yTOMhQBuIwd3UEemCSOM/wBR754O8PGGCHdAF38b
        UCkEdRn68/LxnmuL8DeGvlgblygABwfmAGemBx04/WveNA0cra+W7OrD5wzADaQecfgB9M/U1/OfFdezcUftHAmRqhCNaaJLe2Wy
        hYOvltv3M23O3gjpzkHPHFYHiGfy1ymGmGeEAwWxxyfr0rrdQbyoyEYPKgAcHJweCeR39fp615v4ku2PysMSgkqDk7s5x14AJ9/6
        4/DZYd1J8zO7j7iaGAwrpQlrY4bWGM++WRTJIRuC4IwAeO2MnHYD9aTRPDxu2UBgBnO3lTjOefXA4rUisFkuVAcydOQuCDyByfXB
        GD613vhDwoJZ7fERYjAUDnJ4IOOuMDH0rw82xUcLSaTP4RnjKmc5hvpc+IrYHUJPKVVBYkZLgjoeT/nt6V6f4O0AXEsb7ldSSCwG
        OxHOPc56556c1w/hWx8+WNym5iVJHuBkf0GPf359+8CeHEe0hJOFzkFz82DgkEAY645P+Ff6mcVwWHg4o/e+GsrqZljFUktLnoPg
        nQTCiSqnlkk7RsDe4APuO5r0q1tUtE8tozG8mRtBGRxwPrnByfc1Q0fTBawZYclQNpGO/wA3r2H1/Krl/dJDE7SKBkbiuOmPbjPH
        GT6j3r+Nc9hKvVZ/U1SpTybLr7aHP+IpzAojG7e4C4ZuD7E9v4unWvPb1nu/M3KXYtlSzcFTxk5P1rqtcujMQPMHlnbtA4AIOGx+
        X/1qx7LT2vLrfHxL3bAyDkcdOvX8q+BxFBUIOTP4E8QuKJ47EypRl1DQtEJeMpyNoIAYseDlSATnp69B+Ve9eA/CxWNHzI7jkADg
        4755z245rnPh74UMtxEjRP5I7qOD659QDx/nn6I8J+HIrVInRQJQMFl4yP8AOPyxX848Y5pyJwTM+B8qdaqqk1c//9k=
        """)

    /// A 48x32 gradient, arithmetic-coded (jpegtran -arithmetic of a cjpeg file).
    static let arithmetic = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMU
        FRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU
        FBQUFBQUFBT/yQARCAAgADADASIAAhEBAxEB/8wACgAQEAUBEBEF/9oADAMBAAIRAxEAPwD/ANjVqJkMzOyKT5t/dCKVB5lNHGhZ
        cB7n3Xy+gvmLP6m2z1Q0VGO26PzSRXS27L6fKI2pg0HZirfS80iV5xBGxl5yHjdzftL4n0l/8H5kToKACtQBQcxHwAPICTLDYKWG
        dPW8tgHrjWuZC85Eno5KYuI+itVy9AgSTcVG4FKAwuPqmy7AYXsoqYecyyTnTs+/nKxHS6nk/sK4eaa0lESzue3PN6OdQ6h+TX1c
        nTclUN3uIRlsJasK8NSn8f8Ann/cdWJce7kwXbQhLZUCEQQ28hgfzbpil+pKOlGzDRiYk8FIWtJy3tBQRphU0LQ46BUBoXQ0h4HJ
        qZGKpN4uz0D+7SZ9I+CeQvAPLrgvGEBs0pGe9uh/pJoajgmTMLiPQCyZBBw7RcopLl/KeJe4DdSkHwZ9TUVyNbKa51EgCZEzgFB7
        jlOzAaGFfJ2/mPXpnF4HjkPKgcheCBQPZY1WIBKJzIp4elLElgtLfaBov7IsZYzL7V7lxe7bfWonNietzp7jrURY6zSFFmQOn5b/
        AP8ARym4cU6wthTpkjKFsTvW0P8AyHT7OcbpjB55AxSwcmanF7x6rI+sSlnG3jydyFkFH0gEd6lY/9k=
        """)

    /// The same, progressive and arithmetic-coded (jpegtran -arithmetic -progressive).
    static let arithmeticProgressive = FuzzReplay.bytes(
        """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMU
        FRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU
        FBQUFBQUFBT/ygARCAAgADADASIAAhEBAxEB/8wABgAQARD/2gAMAwEAAhADEAAAAf8AscOIr+uy+V1Yo6+nVkraMkLYoo7dPqsn
        N4GvVrFx2VW398UebOzkr0kMpP/MAAQQBf/aAAgBAQABBQIVU0p2xFlWJddJL5pf/hsxNTCrHsSEaRzwcjxQuxy0WrZ/vatCwHHq
        H7q7qyes2Rlws2ST1DZA/8wABBEF/9oACAEDAQE/ATaqh/aPExiSaV2WLaCuBYuOWrMl/hbcFxNX7hzsbAUeNj//zAAEEQX/2gAI
        AQIBAT8BNtnj5veNiYMEFhAn1wjv9d22VLhKJQAoKoT/zAAEEAX/2gAIAQEABj8Cz7TOahYj2RUciuy8gh6oNtE5eoD/zAAEEAX/
        2gAIAQEAAT8h4GK7NEjAxr/Mes9ZIbnG23fNV8MrqBhGbe9VwyXCwV5ces3reheQtMOcUHOl+ECpDM6wU/xVVTG8fsxvADbktlD/
        2gAMAwEAAgADAAAAEKypmVfI/8wABBEF/9oACAEDAQE/EHn7sbezPrJinF0kD0jq6qEq/8wABBEF/9oACAECAQE/ENNJc80wCqQH
        4cv+4WD/zAAEEAX/2gAIAQEAAT8Q+TImPfjgP5V3M6JdY84yd/iSZm0W+wOT5ZYffb89H9eP25ul7rfuank72ilssreXU1GMizyy
        ioOQQClDqPBoS0t6IHEH+BIzRxIFBRt4DaUqTHABu3i+bWuuuP8AY6n2JfFvodU6P8rhDMLsi2Fhp/DRaLc9aWF59WuArK59yzM6
        9Ok0M2KYtAMp509NwJYSweYFlm7MFLEKQiM7MejYmP/Z
        """)

    @Test("a bad Huffman code makes the image partial, in one shot and at a DCT-scaled size", arguments: [0, 16])
    func badHuffmanCodeIsPartial(side: Int) throws {
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: side, height: side), targetContentMode: .scaleAspectFit)
        let image = try JPEGCodec().decoder.decode(Self.badHuffmanCode, options: options)
        #expect(image.isPartial)
    }

    @Test("a bad Huffman code makes the image partial when decoded as it arrives")
    func badHuffmanCodeIsPartialIncrementally() throws {
        let context = JPEGCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
        _ = try context.append(Self.badHuffmanCode)
        _ = try context.finalize()
        let image = try context.render(
            mode: .anyProgress, targetDimensions: .zero, targetContentMode: .center)
        #expect(image?.isPartial != false)
        #expect(
            try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center) == nil,
            "never a complete image")
    }

    @Test("the libjpeg warnings that mean lost pixels are told from the benign ones")
    func damageWarnings() {
        #expect(JPEGDecoder.isDamageWarning("Corrupt JPEG data: bad Huffman code"))
        #expect(JPEGDecoder.isDamageWarning("Corrupt JPEG data: bad arithmetic code"))
        #expect(JPEGDecoder.isDamageWarning("Corrupt JPEG data: found marker 0xd9 instead of RST3"))
        #expect(JPEGDecoder.isDamageWarning("Corrupt JPEG data: premature end of data segment"))
        #expect(!JPEGDecoder.isDamageWarning("Corrupt JPEG data: 4 extraneous bytes before marker 0xd9"))
    }

    @Test(
        "an arithmetic-coded JPEG fed in chunks decodes once all of it is there, as in one shot",
        arguments: [1, 97, 4096])
    func arithmeticInChunks(chunk: Int) throws {
        for data in [Self.arithmetic, Self.arithmeticProgressive] {
            let whole = try JPEGCodec().decoder.decode(data, options: ImageDecodingOptions())
            #expect(!whole.isPartial && whole.image.width == 48 && whole.image.height == 32)
            let context = JPEGCodec().decoder.makeContext(expectedLength: data.count, options: ImageDecodingOptions())
            var offset = 0
            while offset < data.count {
                let end = min(offset + chunk, data.count)
                _ = try context.append(data.subdata(in: offset..<end))
                offset = end
            }
            _ = try context.finalize()
            let image = try #require(
                try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center))
            #expect(!image.isPartial)
            #expect(image.image == whole.image)
        }
    }
}
